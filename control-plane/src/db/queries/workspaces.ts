import type { Queryable } from '../pool.js';
import type { Role } from '../../services/auth.js';

export interface WorkspaceRow {
  id: number;
  name: string;
  revision: number;
  created_at: Date;
}

export async function membershipsOf(db: Queryable, userId: number): Promise<Array<{ id: number; role: Role }>> {
  const r = await db.query<{ id: number; role: Role }>('SELECT workspace_id AS id, role FROM members WHERE user_id = $1 ORDER BY workspace_id', [userId]);
  return r.rows;
}

export async function listWorkspacesOf(db: Queryable, userId: number): Promise<Array<WorkspaceRow & { role: Role }>> {
  const r = await db.query<WorkspaceRow & { role: Role }>(
    `SELECT w.id, w.name, w.revision, w.created_at, m.role FROM workspaces w
     JOIN members m ON m.workspace_id = w.id WHERE m.user_id = $1 ORDER BY w.id`,
    [userId],
  );
  return r.rows;
}

export async function insertWorkspace(db: Queryable, name: string): Promise<WorkspaceRow> {
  const r = await db.query<WorkspaceRow>('INSERT INTO workspaces (name) VALUES ($1) RETURNING *', [name]);
  const row = r.rows[0];
  if (!row) throw new Error('workspace insert returned no row');
  return row;
}

export async function findWorkspace(db: Queryable, id: number): Promise<WorkspaceRow | undefined> {
  const r = await db.query<WorkspaceRow>('SELECT * FROM workspaces WHERE id = $1', [id]);
  return r.rows[0];
}

export async function upsertMember(db: Queryable, workspaceId: number, userId: number, role: Role): Promise<void> {
  await db.query(
    `INSERT INTO members (workspace_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [workspaceId, userId, role],
  );
}

export async function listMembers(db: Queryable, workspaceId: number): Promise<Array<{ user_id: number; email: string; role: Role; created_at: Date }>> {
  const r = await db.query<{ user_id: number; email: string; role: Role; created_at: Date }>(
    `SELECT m.user_id, u.email, m.role, m.created_at FROM members m JOIN users u ON u.id = m.user_id
     WHERE m.workspace_id = $1 ORDER BY m.user_id`,
    [workspaceId],
  );
  return r.rows;
}

export async function countOwners(db: Queryable, workspaceId: number): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE workspace_id = $1 AND role = 'owner'`, [workspaceId]);
  return r.rows[0]?.n ?? 0;
}

export async function memberRole(db: Queryable, workspaceId: number, userId: number): Promise<Role | undefined> {
  const r = await db.query<{ role: Role }>('SELECT role FROM members WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
  return r.rows[0]?.role;
}

/** Bumps the revision in the caller's transaction; NOTIFY is delivered on commit. */
export async function bumpRevision(db: Queryable, workspaceId: number): Promise<number> {
  const r = await db.query<{ revision: number }>('UPDATE workspaces SET revision = revision + 1 WHERE id = $1 RETURNING revision', [workspaceId]);
  const revision = r.rows[0]?.revision;
  if (revision === undefined) throw new Error(`workspace ${workspaceId} vanished`);
  await db.query('SELECT pg_notify($1, $2)', ['agentwall_revision', `${workspaceId}:${revision}`]);
  return revision;
}

export async function currentRevision(db: Queryable, workspaceId: number): Promise<number | undefined> {
  const r = await db.query<{ revision: number }>('SELECT revision FROM workspaces WHERE id = $1', [workspaceId]);
  return r.rows[0]?.revision;
}
