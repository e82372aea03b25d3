import type { Deps } from '../deps.js';
import { expireSweep } from '../services/approvals.js';

/** Expires lapsed holds; one replica at a time (advisory lock). */
export async function expireApprovals(deps: Deps): Promise<number> {
  const client = await deps.pool.connect();
  try {
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [0x61776578]);
    if (!got.rows[0]?.ok) return 0;
    try {
      return await expireSweep(deps);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [0x61776578]);
    }
  } finally {
    client.release();
  }
}
