import type { Queryable } from '../pool.js';

export interface AccessTokenRow {
  id: number;
  user_id: number;
  name: string;
  token_prefix: string;
  expires_at: Date | null;
  created_at: Date;
}

export async function insertAccessToken(db: Queryable, t: { user_id: number; name: string; token_hash: string; token_prefix: string; expires_at: Date | null }): Promise<AccessTokenRow> {
  const r = await db.query<AccessTokenRow>(
    `INSERT INTO access_tokens (user_id, name, token_hash, token_prefix, expires_at) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, user_id, name, token_prefix, expires_at, created_at`,
    [t.user_id, t.name, t.token_hash, t.token_prefix, t.expires_at],
  );
  const row = r.rows[0];
  if (!row) throw new Error('access token insert returned no row');
  return row;
}

export async function listAccessTokens(db: Queryable, userId: number): Promise<AccessTokenRow[]> {
  const r = await db.query<AccessTokenRow>(
    `SELECT id, user_id, name, token_prefix, expires_at, created_at FROM access_tokens
     WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id`,
    [userId],
  );
  return r.rows;
}

export async function revokeAccessToken(db: Queryable, userId: number, id: number): Promise<boolean> {
  const r = await db.query('UPDATE access_tokens SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL', [id, userId]);
  return (r.rowCount ?? 0) > 0;
}

export async function findAccessTokenUser(db: Queryable, hash: string): Promise<{ id: number; email: string; is_admin: boolean } | undefined> {
  const r = await db.query<{ id: number; email: string; is_admin: boolean }>(
    `SELECT u.id, u.email, u.is_admin FROM access_tokens t JOIN users u ON u.id = t.user_id
     WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
    [hash],
  );
  return r.rows[0];
}
