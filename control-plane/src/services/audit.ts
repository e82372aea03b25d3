import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.js';
import { insertAuditEvents } from '../db/queries/audit.js';

/** Records one control-plane audit event in the caller's transaction. */
export async function audit(db: Queryable, workspaceId: number, kind: string, data: Record<string, unknown>): Promise<void> {
  await insertAuditEvents(db, workspaceId, [{ event_id: `cp_${randomUUID()}`, kind, source: 'control-plane', occurred_at: new Date(), data }]);
}
