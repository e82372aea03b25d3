// The instance's own keys, kept in PostgreSQL encrypted with the master key
// so every replica signs with the same keys: the HS256 key for console
// session tokens and the Ed25519 key that signs config bundles.
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK, calculateJwkThumbprint } from 'jose';
import { decryptSecret, encryptSecret, type Keyring } from '@agentwall/shared/crypto';
import type { Pool } from '../db/pool.js';
import { getInstanceSecret, insertInstanceSecretIfAbsent } from '../db/queries/instance-secrets.js';

export interface InstanceKeys {
  sessionKey: Uint8Array;
  signingKey: CryptoKey;
  signingKid: string;
  publicJwk: JWK;
}

async function getOrCreate(pool: Pool, ring: Keyring, name: string, make: () => Promise<{ secret: string; publicInfo: unknown }>): Promise<{ secret: string; publicInfo: unknown }> {
  let row = await getInstanceSecret(pool, name);
  if (!row) {
    const made = await make();
    await insertInstanceSecretIfAbsent(pool, name, await encryptSecret(ring, made.secret), made.publicInfo);
    row = await getInstanceSecret(pool, name);
    if (!row) throw new Error(`instance secret ${name} could not be stored`);
  }
  return { secret: await decryptSecret(ring, row.value_enc), publicInfo: row.public_info };
}

export async function loadInstanceKeys(pool: Pool, ring: Keyring): Promise<InstanceKeys> {
  const session = await getOrCreate(pool, ring, 'session_hs256', async () => ({ secret: randomBytes(32).toString('base64'), publicInfo: null }));
  const signing = await getOrCreate(pool, ring, 'bundle_ed25519', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const pub = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(pub);
    return { secret: JSON.stringify({ ...(await exportJWK(privateKey)), kid }), publicInfo: { ...pub, kid, alg: 'EdDSA', use: 'sig' } };
  });
  const priv = JSON.parse(signing.secret) as JWK & { kid: string };
  return {
    sessionKey: new Uint8Array(Buffer.from(session.secret, 'base64')),
    signingKey: (await importJWK(priv, 'EdDSA')) as CryptoKey,
    signingKid: priv.kid,
    publicJwk: signing.publicInfo as JWK,
  };
}
