import type { Queryable } from '../pool.js';

export async function getInstanceSecret(db: Queryable, name: string): Promise<{ value_enc: string; public_info: unknown } | undefined> {
  const r = await db.query<{ value_enc: string; public_info: unknown }>('SELECT value_enc, public_info FROM instance_secrets WHERE name = $1', [name]);
  return r.rows[0];
}

/** First writer wins, so replicas starting together agree on one key. */
export async function insertInstanceSecretIfAbsent(db: Queryable, name: string, valueEnc: string, publicInfo: unknown): Promise<void> {
  await db.query('INSERT INTO instance_secrets (name, value_enc, public_info) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [name, valueEnc, JSON.stringify(publicInfo ?? null)]);
}
