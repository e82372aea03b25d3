import type { Queryable } from '../pool.js';

export interface RelayKeyRow {
  id: number;
  workspace_id: number;
  name: string;
  key_prefix: string;
  key_hash: string;
  guardrail_ids: number[];
  quota_limit: number | null;
  quota_used: number;
  rate_limit_rpm: number | null;
  models: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
}

export interface GatewayKeyRow {
  id: number;
  workspace_id: number;
  name: string;
  key_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface RelayKeyFields {
  name: string;
  guardrail_ids: number[];
  quota_limit: number | null;
  rate_limit_rpm: number | null;
  models: string[] | null;
}

export async function insertRelayKey(db: Queryable, k: RelayKeyFields & { workspace_id: number; key_hash: string; key_prefix: string; created_by: number | null }): Promise<RelayKeyRow> {
  const r = await db.query<RelayKeyRow>(
    `INSERT INTO relay_keys (workspace_id, name, key_hash, key_prefix, guardrail_ids, quota_limit, rate_limit_rpm, models, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [k.workspace_id, k.name, k.key_hash, k.key_prefix, k.guardrail_ids, k.quota_limit, k.rate_limit_rpm, k.models, k.created_by],
  );
  const row = r.rows[0];
  if (!row) throw new Error('relay key insert returned no row');
  return row;
}

export async function listRelayKeys(db: Queryable, workspaceId: number): Promise<RelayKeyRow[]> {
  const r = await db.query<RelayKeyRow>('SELECT * FROM relay_keys WHERE workspace_id = $1 AND revoked_at IS NULL ORDER BY id', [workspaceId]);
  return r.rows;
}

export async function findRelayKey(db: Queryable, workspaceId: number, id: number): Promise<RelayKeyRow | undefined> {
  const r = await db.query<RelayKeyRow>('SELECT * FROM relay_keys WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL', [workspaceId, id]);
  return r.rows[0];
}

export async function updateRelayKey(db: Queryable, workspaceId: number, id: number, patch: Partial<RelayKeyFields>): Promise<RelayKeyRow | undefined> {
  const cols = Object.entries(patch).filter(([, v]) => v !== undefined);
  if (cols.length === 0) return findRelayKey(db, workspaceId, id);
  const sets = cols.map(([k], i) => `${k} = $${i + 3}`).join(', ');
  const r = await db.query<RelayKeyRow>(
    `UPDATE relay_keys SET ${sets} WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING *`,
    [workspaceId, id, ...cols.map(([, v]) => v)],
  );
  return r.rows[0];
}

export async function revokeRelayKey(db: Queryable, workspaceId: number, id: number): Promise<boolean> {
  const r = await db.query('UPDATE relay_keys SET revoked_at = now() WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL', [workspaceId, id]);
  return (r.rowCount ?? 0) > 0;
}

export async function insertGatewayKey(db: Queryable, k: { workspace_id: number; name: string; key_hash: string; key_prefix: string; created_by: number | null }): Promise<GatewayKeyRow> {
  const r = await db.query<GatewayKeyRow>(
    `INSERT INTO gateway_keys (workspace_id, name, key_hash, key_prefix, created_by) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, workspace_id, name, key_prefix, created_at, revoked_at`,
    [k.workspace_id, k.name, k.key_hash, k.key_prefix, k.created_by],
  );
  const row = r.rows[0];
  if (!row) throw new Error('gateway key insert returned no row');
  return row;
}

export async function listGatewayKeys(db: Queryable, workspaceId: number): Promise<GatewayKeyRow[]> {
  const r = await db.query<GatewayKeyRow>(
    'SELECT id, workspace_id, name, key_prefix, created_at, revoked_at FROM gateway_keys WHERE workspace_id = $1 AND revoked_at IS NULL ORDER BY id',
    [workspaceId],
  );
  return r.rows;
}

export async function revokeGatewayKey(db: Queryable, workspaceId: number, id: number): Promise<boolean> {
  const r = await db.query('UPDATE gateway_keys SET revoked_at = now() WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL', [workspaceId, id]);
  return (r.rowCount ?? 0) > 0;
}

export async function findGatewayKey(db: Queryable, hash: string): Promise<{ id: number; workspace_id: number } | undefined> {
  const r = await db.query<{ id: number; workspace_id: number }>('SELECT id, workspace_id FROM gateway_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
  return r.rows[0];
}

/** The ids among `ids` that are not live guardrails of the workspace. */
export async function unknownGuardrailIds(db: Queryable, workspaceId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const r = await db.query<{ id: number }>('SELECT id FROM guardrails WHERE workspace_id = $1 AND deleted_at IS NULL AND id = ANY($2::bigint[])', [workspaceId, ids]);
  const known = new Set(r.rows.map((x) => x.id));
  return ids.filter((id) => !known.has(id));
}
