import type { Queryable } from '../pool.js';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface ApprovalRow {
  id: string;
  workspace_id: number;
  status: ApprovalStatus;
  surface: string;
  tool_name: string;
  args_hash: string | null;
  request_id: string | null;
  conversation_id: string | null;
  policy_id: number | null;
  rule_id: number | null;
  relay_key_id: number | null;
  created_at: Date;
  expires_at: Date;
  resolved_at: Date | null;
  resolved_by: 'console' | 'callback' | 'expiry' | null;
  resolver_id: number | null;
  reason: string | null;
  token_hash: string | null;
  token_enc: string | null;
  token_consumed_at: Date | null;
}

export async function insertApproval(
  db: Queryable,
  a: Pick<ApprovalRow, 'id' | 'workspace_id' | 'surface' | 'tool_name' | 'args_hash' | 'request_id' | 'conversation_id' | 'policy_id' | 'rule_id' | 'relay_key_id'> & { ttl_seconds: number },
): Promise<ApprovalRow> {
  const r = await db.query<ApprovalRow>(
    `INSERT INTO approvals (id, workspace_id, surface, tool_name, args_hash, request_id, conversation_id, policy_id, rule_id, relay_key_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(secs => $11)) RETURNING *`,
    [a.id, a.workspace_id, a.surface, a.tool_name, a.args_hash, a.request_id, a.conversation_id, a.policy_id, a.rule_id, a.relay_key_id, a.ttl_seconds],
  );
  return r.rows[0]!;
}

export async function findApproval(db: Queryable, id: string, workspaceId?: number): Promise<ApprovalRow | undefined> {
  const r = await db.query<ApprovalRow>(
    `SELECT * FROM approvals WHERE id = $1 ${workspaceId === undefined ? '' : 'AND workspace_id = $2'}`,
    workspaceId === undefined ? [id] : [id, workspaceId],
  );
  return r.rows[0];
}

/** First writer wins: one conditional update; undefined when already resolved (or expired by time). */
export async function resolveApproval(
  db: Queryable,
  id: string,
  d: { status: 'approved' | 'rejected'; by: 'console' | 'callback'; resolver_id: number | null; reason: string | null; token_hash: string | null; token_enc: string | null },
): Promise<ApprovalRow | undefined> {
  const r = await db.query<ApprovalRow>(
    `UPDATE approvals SET status = $2, resolved_by = $3, resolver_id = $4, reason = $5, token_hash = $6, token_enc = $7, resolved_at = now()
     WHERE id = $1 AND status = 'pending' AND expires_at > now() RETURNING *`,
    [id, d.status, d.by, d.resolver_id, d.reason, d.token_hash, d.token_enc],
  );
  return r.rows[0];
}

export async function expireDue(db: Queryable, id?: string): Promise<ApprovalRow[]> {
  const r = await db.query<ApprovalRow>(
    `UPDATE approvals SET status = 'expired', resolved_by = 'expiry', resolved_at = now()
     WHERE status = 'pending' AND expires_at <= now() ${id === undefined ? '' : 'AND id = $1'} RETURNING *`,
    id === undefined ? [] : [id],
  );
  return r.rows;
}

/** Consumes a single-use token bound to its tool and, where bound, its arguments. */
export async function consumeToken(db: Queryable, workspaceId: number, tokenHash: string, toolName: string, argsHash: string | null): Promise<ApprovalRow | undefined> {
  const r = await db.query<ApprovalRow>(
    `UPDATE approvals SET token_consumed_at = now()
     WHERE workspace_id = $1 AND token_hash = $2 AND status = 'approved' AND token_consumed_at IS NULL
       AND tool_name = $3 AND (args_hash IS NULL OR args_hash = $4)
     RETURNING *`,
    [workspaceId, tokenHash, toolName, argsHash],
  );
  return r.rows[0];
}

export async function listApprovals(db: Queryable, workspaceId: number, status: string | undefined, limit: number): Promise<ApprovalRow[]> {
  const r = await db.query<ApprovalRow>(
    `SELECT * FROM approvals WHERE workspace_id = $1 ${status ? 'AND status = $3' : ''} ORDER BY created_at DESC, id LIMIT $2`,
    status ? [workspaceId, limit, status] : [workspaceId, limit],
  );
  return r.rows;
}

export interface ApprovalSettingsRow {
  workspace_id: number;
  webhook_url: string | null;
  webhook_secret_enc: string | null;
  hold_ttl_seconds: number;
}

export async function getApprovalSettings(db: Queryable, workspaceId: number): Promise<ApprovalSettingsRow> {
  const r = await db.query<ApprovalSettingsRow>('SELECT * FROM approval_settings WHERE workspace_id = $1', [workspaceId]);
  return r.rows[0] ?? { workspace_id: workspaceId, webhook_url: null, webhook_secret_enc: null, hold_ttl_seconds: 900 };
}

export async function putApprovalSettings(db: Queryable, s: ApprovalSettingsRow): Promise<void> {
  await db.query(
    `INSERT INTO approval_settings (workspace_id, webhook_url, webhook_secret_enc, hold_ttl_seconds) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id) DO UPDATE SET webhook_url = $2, webhook_secret_enc = $3, hold_ttl_seconds = $4, updated_at = now()`,
    [s.workspace_id, s.webhook_url, s.webhook_secret_enc, s.hold_ttl_seconds],
  );
}

export async function insertDelivery(db: Queryable, d: { workspace_id: number; approval_id: string | null; event: string; url: string; attempt: number; status_code: number | null; error: string | null; duration_ms: number }): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (workspace_id, approval_id, event, url, attempt, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [d.workspace_id, d.approval_id, d.event, d.url, d.attempt, d.status_code, d.error, d.duration_ms],
  );
}

export async function listDeliveries(db: Queryable, workspaceId: number, limit: number) {
  const r = await db.query('SELECT id, approval_id, event, url, attempt, status_code, error, duration_ms, created_at FROM webhook_deliveries WHERE workspace_id = $1 ORDER BY id DESC LIMIT $2', [workspaceId, limit]);
  return r.rows;
}
