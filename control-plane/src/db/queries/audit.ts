import type { Queryable } from '../pool.js';

export interface AuditEvent {
  event_id: string;
  kind: string;
  source: 'control-plane' | 'sidecar';
  occurred_at: Date | string;
  data: Record<string, unknown>;
}

/** Idempotent per (workspace, event_id): a re-shipped batch adds nothing. */
export async function insertAuditEvents(db: Queryable, workspaceId: number, events: AuditEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const r = await db.query(
    `INSERT INTO audit_events (workspace_id, event_id, kind, source, occurred_at, data)
     SELECT $1, e.event_id, e.kind, e.source, e.occurred_at, e.data
     FROM jsonb_to_recordset($2::jsonb) AS e(event_id text, kind text, source text, occurred_at timestamptz, data jsonb)
     ON CONFLICT (workspace_id, event_id) DO NOTHING`,
    [workspaceId, JSON.stringify(events)],
  );
  return r.rowCount ?? 0;
}

export async function listAuditEvents(db: Queryable, workspaceId: number, q: { kind?: string | undefined; from?: string | undefined; to?: string | undefined; limit: number }) {
  const params: unknown[] = [workspaceId, q.limit + 1];
  const where = ['workspace_id = $1'];
  if (q.kind) where.push(`kind = $${params.push(q.kind)}`);
  if (q.from) where.push(`occurred_at >= $${params.push(q.from)}`);
  if (q.to) where.push(`occurred_at < $${params.push(q.to)}`);
  const r = await db.query(`SELECT id, event_id, kind, source, occurred_at, data FROM audit_events WHERE ${where.join(' AND ')} ORDER BY occurred_at DESC, id DESC LIMIT $2`, params);
  return { data: r.rows.slice(0, q.limit), has_more: r.rows.length > q.limit };
}
