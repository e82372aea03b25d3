// Re-encrypts every stored secret with the keyring's primary key, one
// transaction per column, rows locked while rewritten.
import { decryptSecret, encryptSecret, envelopeKid, type Keyring } from '@agentwall/shared/crypto';
import { withTransaction, type Pool } from '../db/pool.js';
import { SECRET_COLUMNS } from './secret-columns.js';

export async function reencryptAll(pool: Pool, ring: Keyring): Promise<{ rewritten: number; already: number }> {
  let rewritten = 0;
  let already = 0;
  for (const { table, id, column } of SECRET_COLUMNS) {
    await withTransaction(pool, async (db) => {
      const rows = await db.query<{ id: unknown; v: string }>(`SELECT ${id} AS id, ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL FOR UPDATE`);
      for (const row of rows.rows) {
        if (envelopeKid(row.v) === ring.primary.kid) {
          already++;
          continue;
        }
        const next = await encryptSecret(ring, await decryptSecret(ring, row.v));
        await db.query(`UPDATE ${table} SET ${column} = $1 WHERE ${id} = $2`, [next, row.id]);
        rewritten++;
      }
    });
  }
  return { rewritten, already };
}
