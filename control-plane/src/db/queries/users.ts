import type { Queryable } from '../pool.js';

export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  is_admin: boolean;
  created_at: Date;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const r = await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return r.rows[0];
}

export async function findUserById(db: Queryable, id: number): Promise<Pick<UserRow, 'id' | 'email' | 'is_admin'> | undefined> {
  const r = await db.query<UserRow>('SELECT id, email, is_admin FROM users WHERE id = $1', [id]);
  return r.rows[0];
}

/** Returns undefined when the email is taken (unique index on lower(email)). */
export async function insertUser(db: Queryable, u: { email: string; password_hash: string; is_admin: boolean }): Promise<UserRow | undefined> {
  const r = await db.query<UserRow>(
    `INSERT INTO users (email, password_hash, is_admin) VALUES ($1, $2, $3)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING *`,
    [u.email, u.password_hash, u.is_admin],
  );
  return r.rows[0];
}

export async function countUsers(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return r.rows[0]?.n ?? 0;
}
