// Builds, seals and signs a workspace's config bundle. Sections are read in
// one repeatable-read snapshot together with the revision, so a bundle never
// mixes two revisions. Secrets travel as master-key envelopes until the
// moment of sending, when each is re-encrypted to the requesting sidecar's
// ephemeral key; nothing in clear is cached.
import { CompactEncrypt, CompactSign, importJWK, type CryptoKey, type JWK } from 'jose';
import { AppError } from '@agentwall/shared/errors';
import { BUNDLE_SCHEMA_VERSION, type ConfigBundle } from '@agentwall/shared/bundle';
import { decryptSecret } from '@agentwall/shared/crypto';
import type { Deps } from '../deps.js';
import type { PoolClient } from '../db/pool.js';
import { BUNDLE_SECTIONS } from './bundle-sections.js';

/** A secret inside a section, still encrypted with the master key. */
export interface SecretRef {
  $secret: string;
}

export interface PreparedBundle {
  workspace_id: number;
  revision: number;
  sections: Record<string, unknown>;
}

export type SealKey = CryptoKey | Uint8Array;

export async function prepareBundle(deps: Deps, workspaceId: number): Promise<PreparedBundle> {
  const client: PoolClient = await deps.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const r = await client.query<{ revision: number }>('SELECT revision FROM workspaces WHERE id = $1', [workspaceId]);
    const revision = r.rows[0]?.revision;
    if (revision === undefined) throw new AppError('not_found', 'Workspace not found.');
    const sections: Record<string, unknown> = {};
    for (const [name, read] of Object.entries(BUNDLE_SECTIONS)) sections[name] = await read(client, workspaceId);
    await client.query('COMMIT');
    return { workspace_id: workspaceId, revision, sections };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** Parses the sidecar's public key header (base64url JSON JWK, X25519 or P-256). */
export async function parseSidecarKey(header: string | undefined): Promise<CryptoKey | undefined> {
  if (!header) return undefined;
  let jwk: JWK;
  try {
    jwk = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as JWK;
  } catch {
    throw new AppError('invalid_request', 'X-Agentwall-Sidecar-Key must be a base64url-encoded JSON public key.');
  }
  const okp = jwk.kty === 'OKP' && jwk.crv === 'X25519';
  const ec = jwk.kty === 'EC' && jwk.crv === 'P-256';
  if ((!okp && !ec) || typeof jwk.d === 'string') {
    throw new AppError('invalid_request', 'X-Agentwall-Sidecar-Key must be a public X25519 or P-256 key.');
  }
  try {
    return (await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(ec ? { y: jwk.y } : {}) }, 'ECDH-ES+A256KW')) as CryptoKey;
  } catch {
    throw new AppError('invalid_request', 'X-Agentwall-Sidecar-Key is not a usable public key.');
  }
}

async function seal(deps: Deps, value: unknown, key: CryptoKey | undefined): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((v) => seal(deps, v, key)));
  if (value === null || typeof value !== 'object') return value;
  if (Object.hasOwn(value, '$secret')) {
    if (!key) return null; // no sidecar key: the secret is withheld, never sent in clear
    const clear = await decryptSecret(deps.keyring, (value as SecretRef).$secret);
    const sealed = await new CompactEncrypt(new TextEncoder().encode(clear)).setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM' }).encrypt(key);
    return { sealed };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = await seal(deps, v, key);
  return out;
}

export async function signBundle(deps: Deps, prepared: PreparedBundle, sidecarKey: CryptoKey | undefined): Promise<string> {
  const bundle: ConfigBundle = {
    schema: BUNDLE_SCHEMA_VERSION,
    workspace_id: prepared.workspace_id,
    revision: prepared.revision,
    issued_at: new Date().toISOString(),
    relay_keys: [],
    ...((await seal(deps, prepared.sections, sidecarKey)) as Record<string, unknown>),
  };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(bundle)))
    .setProtectedHeader({ alg: 'EdDSA', kid: deps.keys.signingKid, typ: 'agentwall-bundle+jws' })
    .sign(deps.keys.signingKey);
}

export function bundleEtag(workspaceId: number, revision: number): string {
  return `"ws${workspaceId}-r${revision}"`;
}
