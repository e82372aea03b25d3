// Secrets at rest: AES-256-GCM JWE envelopes (`dir`/`A256GCM`) carrying the
// key id in the protected header, so the master key can be rotated while
// old envelopes stay readable. Also the shared helpers for one-way hashes,
// random credentials and the masked form of CONTRACT §5.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';

export interface MasterKey {
  kid: string;
  key: Uint8Array;
}

/** The first key encrypts; every key decrypts. */
export interface Keyring {
  primary: MasterKey;
  keys: ReadonlyMap<string, Uint8Array>;
}

export function createKeyring(keys: MasterKey[]): Keyring {
  const [primary] = keys;
  if (!primary) throw new Error('keyring needs at least one master key');
  const map = new Map<string, Uint8Array>();
  for (const k of keys) {
    if (k.key.byteLength !== 32) throw new Error(`master key "${k.kid}" must be 32 bytes`);
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(k.kid)) throw new Error('master key id must be 1-32 of [A-Za-z0-9_-]');
    if (map.has(k.kid)) throw new Error(`master key id "${k.kid}" is listed twice`);
    map.set(k.kid, k.key);
  }
  return { primary, keys: map };
}

/**
 * Parses `AGENTWALL_MASTER_KEYS` (`kid1:base64,kid2:base64`) or a single
 * `AGENTWALL_MASTER_KEY` (base64). Errors name the variable, never the value.
 */
export function parseMasterKeys(env: { AGENTWALL_MASTER_KEYS?: string | undefined; AGENTWALL_MASTER_KEY?: string | undefined }): MasterKey[] | undefined {
  if (env.AGENTWALL_MASTER_KEYS) {
    return env.AGENTWALL_MASTER_KEYS.split(',').map((part, i) => {
      const at = part.indexOf(':');
      if (at <= 0) throw new Error(`AGENTWALL_MASTER_KEYS entry ${i + 1} must be kid:base64key`);
      return { kid: part.slice(0, at).trim(), key: decodeKey(part.slice(at + 1).trim(), 'AGENTWALL_MASTER_KEYS') };
    });
  }
  if (env.AGENTWALL_MASTER_KEY) return [{ kid: 'k1', key: decodeKey(env.AGENTWALL_MASTER_KEY.trim(), 'AGENTWALL_MASTER_KEY') }];
  return undefined;
}

function decodeKey(b64: string, name: string): Uint8Array {
  const key = Buffer.from(b64, 'base64');
  if (key.byteLength !== 32) throw new Error(`${name} must be 32 bytes, base64-encoded`);
  return new Uint8Array(key);
}

export async function encryptSecret(ring: Keyring, plaintext: string): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: ring.primary.kid })
    .encrypt(ring.primary.key);
}

export async function decryptSecret(ring: Keyring, envelope: string): Promise<string> {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(envelope).kid;
  } catch (cause) {
    throw new Error('stored secret is not a readable envelope', { cause });
  }
  const key = typeof kid === 'string' ? ring.keys.get(kid) : undefined;
  if (!key) throw new Error(`no master key with id "${String(kid)}" to decrypt a stored secret`);
  const { plaintext } = await compactDecrypt(envelope, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
  return new TextDecoder().decode(plaintext);
}

export function envelopeKid(envelope: string): string | undefined {
  try {
    const kid = decodeProtectedHeader(envelope).kid;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}

/** CONTRACT §5: "****" + last 4 characters when 16 or longer, else "****". */
export function maskSecret(value: string): string {
  return value.length >= 16 ? `****${value.slice(-4)}` : '****';
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from the CSPRNG (randomInt avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function randomId(prefix: string, bytes = 16): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
