import type { Queryable } from '../pool.js';
import type { AuthMode } from '@agentwall/shared/mcp';

export interface ToolServerRow {
  id: number;
  workspace_id: number;
  name: string;
  endpoint: string;
  auth_mode: AuthMode;
  auth_enc: string | null;
  enabled: boolean;
  status: 'unknown' | 'ok' | 'degraded' | 'down';
  status_detail: string | null;
  tools: Array<{ name: string; description?: string; inputSchema?: unknown }>;
  pinned_tools: Record<string, string> | null;
  latency_ms: number | null;
  last_probed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function listToolServers(db: Queryable, workspaceId: number, onlyEnabled = false): Promise<ToolServerRow[]> {
  const r = await db.query<ToolServerRow>(
    `SELECT * FROM mcp_servers WHERE workspace_id = $1 ${onlyEnabled ? 'AND enabled' : ''} ORDER BY id`,
    [workspaceId],
  );
  return r.rows;
}

export async function findToolServer(db: Queryable, workspaceId: number, id: number, lock = false): Promise<ToolServerRow | undefined> {
  const r = await db.query<ToolServerRow>(`SELECT * FROM mcp_servers WHERE workspace_id = $1 AND id = $2 ${lock ? 'FOR UPDATE' : ''}`, [workspaceId, id]);
  return r.rows[0];
}

/** Undefined when the name is taken in the workspace. */
export async function insertToolServer(
  db: Queryable,
  s: { workspace_id: number; name: string; endpoint: string; auth_mode: AuthMode; auth_enc: string | null; enabled: boolean },
): Promise<ToolServerRow | undefined> {
  const r = await db.query<ToolServerRow>(
    `INSERT INTO mcp_servers (workspace_id, name, endpoint, auth_mode, auth_enc, enabled) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (workspace_id, name) DO NOTHING RETURNING *`,
    [s.workspace_id, s.name, s.endpoint, s.auth_mode, s.auth_enc, s.enabled],
  );
  return r.rows[0];
}

export async function updateToolServer(
  db: Queryable,
  id: number,
  s: { name: string; endpoint: string; auth_mode: AuthMode; auth_enc: string | null; enabled: boolean },
): Promise<ToolServerRow | undefined> {
  const r = await db.query<ToolServerRow>(
    `UPDATE mcp_servers SET name = $2, endpoint = $3, auth_mode = $4, auth_enc = $5, enabled = $6, updated_at = now()
     WHERE id = $1 RETURNING *`,
    [id, s.name, s.endpoint, s.auth_mode, s.auth_enc, s.enabled],
  );
  return r.rows[0];
}

export async function nameTaken(db: Queryable, workspaceId: number, name: string, exceptId: number): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM mcp_servers WHERE workspace_id = $1 AND name = $2 AND id <> $3', [workspaceId, name, exceptId]);
  return (r.rowCount ?? 0) > 0;
}

export async function deleteToolServer(db: Queryable, workspaceId: number, id: number): Promise<boolean> {
  const r = await db.query('DELETE FROM mcp_servers WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (r.rowCount ?? 0) > 0;
}

export async function recordProbe(
  db: Queryable,
  id: number,
  p: { status: ToolServerRow['status']; detail: string; tools: ToolServerRow['tools'] | null; latency_ms: number; pins: Record<string, string> | null },
): Promise<ToolServerRow | undefined> {
  const r = await db.query<ToolServerRow>(
    `UPDATE mcp_servers SET status = $2, status_detail = $3, tools = COALESCE($4::jsonb, tools), latency_ms = $5, last_probed_at = now(),
       pinned_tools = COALESCE(pinned_tools, $6::jsonb)
     WHERE id = $1 RETURNING *`,
    [id, p.status, p.detail, p.tools === null ? null : JSON.stringify(p.tools), p.latency_ms, p.pins === null ? null : JSON.stringify(p.pins)],
  );
  return r.rows[0];
}

export async function setPins(db: Queryable, id: number, pins: Record<string, string>, tools: ToolServerRow['tools']): Promise<ToolServerRow | undefined> {
  const r = await db.query<ToolServerRow>('UPDATE mcp_servers SET pinned_tools = $2, tools = $3, updated_at = now() WHERE id = $1 RETURNING *', [id, JSON.stringify(pins), JSON.stringify(tools)]);
  return r.rows[0];
}
