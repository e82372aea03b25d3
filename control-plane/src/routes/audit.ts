import { z } from 'zod';
import { route, type RouteDef } from '../http/route.js';
import { insertAuditEvents, listAuditEvents } from '../db/queries/audit.js';
import { gatewayWorkspace, workspaceOf } from './util.js';

const Query = z.object({
  kind: z.string().max(100).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});
const Batch = z
  .object({
    events: z
      .array(
        z.object({
          event_id: z.string().min(1).max(100),
          kind: z.string().min(1).max(100),
          occurred_at: z.iso.datetime({ offset: true }),
          data: z.record(z.string(), z.unknown()),
        }).strict(),
      )
      .max(1000),
  })
  .strict();

export const auditRoutes: RouteDef[] = [
  route({
    method: 'get', path: '/api/workspace/audit', tag: 'audit', summary: 'Audit events (non-allow verdicts, approval transitions), newest first; filter by kind and time.',
    auth: 'session', role: 'developer', query: Query,
    handler: async ({ deps, workspace, query }) => ({ body: await listAuditEvents(deps.pool, workspaceOf(workspace).id, { kind: query.kind, from: query.from, to: query.to, limit: query.limit ?? 100 }) }),
  }),
  route({
    method: 'post', path: '/api/v1/audit/events', tag: 'sidecar', summary: 'Sidecar: ship a batch of audit events (idempotent per event_id).',
    auth: 'gateway', body: Batch,
    handler: async ({ deps, principal, body }) => {
      const ws = gatewayWorkspace(principal);
      const inserted = await insertAuditEvents(deps.pool, ws, body.events.map((e) => ({ ...e, source: 'sidecar' as const })));
      return { body: { accepted: body.events.length, inserted } };
    },
  }),
];
