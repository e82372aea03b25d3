// Where the master keyring comes from: the environment, else a key file
// generated once into the data directory (mode 0600).
import { existsSync } from 'node:fs';
import { readFile, writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createKeyring, parseMasterKeys, type Keyring, type MasterKey } from '@agentwall/shared/crypto';

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, 'master.keys');
}

export async function readKeyFile(file: string): Promise<MasterKey[]> {
  const text = (await readFile(file, 'utf8')).trim();
  const keys = parseMasterKeys({ AGENTWALL_MASTER_KEYS: text.split(/\s+/).join(',') });
  if (!keys) throw new Error(`${file} holds no key`);
  return keys;
}

export async function writeKeyFile(file: string, keys: MasterKey[]): Promise<void> {
  const tmp = `${file}.tmp`;
  await writeFile(tmp, keys.map((k) => `${k.kid}:${Buffer.from(k.key).toString('base64')}`).join('\n') + '\n', { mode: 0o600 });
  await rename(tmp, file);
}

export async function loadKeyring(env: NodeJS.ProcessEnv, dataDir: string): Promise<{ ring: Keyring; source: 'env' | 'file' }> {
  const fromEnv = parseMasterKeys(env);
  if (fromEnv) return { ring: createKeyring(fromEnv), source: 'env' };
  const file = keyFilePath(dataDir);
  if (!existsSync(file)) await writeKeyFile(file, [{ kid: 'k1', key: new Uint8Array(randomBytes(32)) }]);
  return { ring: createKeyring(await readKeyFile(file)), source: 'file' };
}
