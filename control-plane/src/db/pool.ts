import pg from 'pg';
import type { Logger } from 'pino';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = pg.Pool | pg.PoolClient;

// BIGINT ids and counters fit in a JS number for any realistic deployment;
// returning them as numbers keeps the API's integer ids integers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createPool(url: string, log?: Logger, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  // An idle client whose server went away emits 'error'; unhandled, it kills the process.
  pool.on('error', (err) => log?.warn({ err: { message: err.message } }, 'database connection lost'));
  return pool;
}

/** Runs fn in one transaction; rolls back on any throw. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
