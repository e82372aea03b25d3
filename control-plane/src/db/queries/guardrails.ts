import type { PoolClient, Queryable } from '../pool.js';

export interface GuardrailRow {
  id: number;
  workspace_id: number;
  name: string;
  enabled: boolean;
  is_default: boolean;
  rules: unknown[];
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** The content a history row snapshots. */
export interface GuardrailContent {
  name: string;
  enabled: boolean;
  is_default: boolean;
  rules: unknown[];
}

export type Operation = 'create' | 'update' | 'delete' | 'revert';

export interface VersionRow extends GuardrailContent {
  guardrail_id: number;
  version: number;
  operation: Operation;
  author_id: number | null;
  author_email: string;
  created_at: Date;
}

/** Versions kept per guardrail (spec "Limits"); older rows are pruned in the change's transaction. */
export const HISTORY_KEEP = 50;

/** Live guardrails of the workspace, oldest first. */
export async function listGuardrails(db: Queryable, workspaceId: number): Promise<GuardrailRow[]> {
  const r = await db.query<GuardrailRow>('SELECT * FROM guardrails WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY id', [workspaceId]);
  return r.rows;
}

/** A live guardrail of the workspace. */
export async function findGuardrail(db: Queryable, workspaceId: number, id: number): Promise<GuardrailRow | undefined> {
  const r = await db.query<GuardrailRow>('SELECT * FROM guardrails WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL', [workspaceId, id]);
  return r.rows[0];
}

/**
 * Locks the guardrail row, deleted or not, for the rest of the transaction:
 * every change of one guardrail runs one at a time, so versions never repeat
 * or skip.
 */
export async function lockGuardrail(db: PoolClient, workspaceId: number, id: number): Promise<GuardrailRow | undefined> {
  const r = await db.query<GuardrailRow>('SELECT * FROM guardrails WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [workspaceId, id]);
  return r.rows[0];
}

/** Whether the guardrail exists in the workspace, deleted or not (history stays readable after delete). */
export async function guardrailExists(db: Queryable, workspaceId: number, id: number): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM guardrails WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (r.rowCount ?? 0) > 0;
}

export async function nameTaken(db: Queryable, workspaceId: number, name: string, exceptId: number | null): Promise<boolean> {
  const r = await db.query(
    'SELECT 1 FROM guardrails WHERE workspace_id = $1 AND name = $2 AND deleted_at IS NULL AND id IS DISTINCT FROM $3',
    [workspaceId, name, exceptId],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function insertGuardrail(db: Queryable, workspaceId: number, c: GuardrailContent): Promise<GuardrailRow> {
  const r = await db.query<GuardrailRow>(
    'INSERT INTO guardrails (workspace_id, name, enabled, is_default, rules) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [workspaceId, c.name, c.enabled, c.is_default, JSON.stringify(c.rules)],
  );
  const row = r.rows[0];
  if (!row) throw new Error('guardrail insert returned no row');
  return row;
}

/** Writes new content, the next version, and whether the guardrail is live (delete and revert move that). */
export async function writeGuardrail(db: Queryable, id: number, c: GuardrailContent, version: number, live: boolean): Promise<GuardrailRow> {
  const r = await db.query<GuardrailRow>(
    `UPDATE guardrails SET name = $2, enabled = $3, is_default = $4, rules = $5, version = $6, updated_at = now(),
       deleted_at = CASE WHEN $7::boolean THEN NULL ELSE COALESCE(deleted_at, now()) END
     WHERE id = $1 RETURNING *`,
    [id, c.name, c.enabled, c.is_default, JSON.stringify(c.rules), version, live],
  );
  const row = r.rows[0];
  if (!row) throw new Error(`guardrail ${id} vanished under its lock`);
  return row;
}

/** Appends one history row and prunes all but the newest HISTORY_KEEP, in the caller's transaction. */
export async function appendVersion(
  db: Queryable,
  v: { guardrail_id: number; version: number; operation: Operation; author: { id: number; email: string } } & GuardrailContent,
): Promise<void> {
  await db.query(
    `INSERT INTO guardrail_versions (guardrail_id, version, operation, author_id, author_email, name, enabled, is_default, rules)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [v.guardrail_id, v.version, v.operation, v.author.id, v.author.email, v.name, v.enabled, v.is_default, JSON.stringify(v.rules)],
  );
  await db.query('DELETE FROM guardrail_versions WHERE guardrail_id = $1 AND version <= $2', [v.guardrail_id, v.version - HISTORY_KEEP]);
}

/** Newest first; at most HISTORY_KEEP rows exist. The join on workspace keeps other workspaces' rows unreachable. */
export async function listVersions(db: Queryable, workspaceId: number, guardrailId: number): Promise<VersionRow[]> {
  const r = await db.query<VersionRow>(
    `SELECT v.* FROM guardrail_versions v JOIN guardrails g ON g.id = v.guardrail_id
     WHERE g.workspace_id = $1 AND v.guardrail_id = $2 ORDER BY v.version DESC LIMIT $3`,
    [workspaceId, guardrailId, HISTORY_KEEP],
  );
  return r.rows;
}

export async function findVersion(db: Queryable, workspaceId: number, guardrailId: number, version: number): Promise<VersionRow | undefined> {
  const r = await db.query<VersionRow>(
    `SELECT v.* FROM guardrail_versions v JOIN guardrails g ON g.id = v.guardrail_id
     WHERE g.workspace_id = $1 AND v.guardrail_id = $2 AND v.version = $3`,
    [workspaceId, guardrailId, version],
  );
  return r.rows[0];
}

/** One bundle object per live, enabled guardrail (STYLE habit 8). */
export interface BundleGuardrail {
  id: number;
  name: string;
  is_default: boolean;
  rules: unknown[];
}

/** Bundle section `guardrails`: read inside the bundle's snapshot transaction. */
export async function bundleGuardrails(db: Queryable, workspaceId: number): Promise<BundleGuardrail[]> {
  const r = await db.query<BundleGuardrail>(
    'SELECT id, name, is_default, rules FROM guardrails WHERE workspace_id = $1 AND enabled AND deleted_at IS NULL ORDER BY id',
    [workspaceId],
  );
  return r.rows;
}
