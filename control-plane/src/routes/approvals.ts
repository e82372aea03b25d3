import { z } from 'zod';
import { AppError } from '@agentwall/shared/errors';
import { encryptSecret } from '@agentwall/shared/crypto';
import { SIGNATURE_HEADER } from '@agentwall/shared/signatures';
import { route, type RouteDef } from '../http/route.js';
import { withTransaction } from '../db/pool.js';
import { getApprovalSettings, listApprovals, listDeliveries, putApprovalSettings } from '../db/queries/approvals.js';
import { callback, consume, createHold, decide, getApproval, pollApproval, viewApproval } from '../services/approvals.js';
import { gatewayWorkspace, userOf, workspaceOf } from './util.js';

const Decision = z.object({ reason: z.string().max(2000).optional() }).strict();
const Settings = z
  .object({
    webhook_url: z.string().max(2048).nullable().optional(),
    webhook_secret: z.string().min(16).max(512).nullable().optional(),
    hold_ttl_seconds: z.number().int().min(60).max(86_400).optional(),
  })
  .strict();
const Hold = z
  .object({
    surface: z.enum(['mcp', 'response', 'inbound', 'egress']),
    tool_name: z.string().min(1).max(512),
    args_hash: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
    request_id: z.string().max(200).nullable(),
    conversation_id: z.string().max(200).nullable(),
    policy_id: z.number().int().nullable(),
    rule_id: z.number().int().nullable(),
    relay_key_id: z.number().int().nullable(),
  })
  .strict();
const Consume = z.object({ token: z.string().min(1).max(200), tool_name: z.string().min(1).max(512), args_hash: z.string().regex(/^[0-9a-f]{64}$/).nullable() }).strict();
const StatusQuery = z.object({ status: z.enum(['pending', 'approved', 'rejected', 'expired']).optional(), limit: z.coerce.number().int().min(1).max(500).optional() });
const Wait = z.object({ wait: z.coerce.number().min(0).max(60).optional() });

function approvalId(params: Record<string, string>): string {
  const id = params['id'] ?? '';
  if (!/^apr_[A-Za-z0-9_-]{1,64}$/.test(id)) throw new AppError('not_found', 'Approval not found.');
  return id;
}


function checkWebhookUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AppError('invalid_request', 'webhook_url: must be an absolute https URL', { metadata: { field: 'webhook_url' } });
  }
  if (u.protocol !== 'https:') throw new AppError('invalid_request', 'webhook_url: must use https', { metadata: { field: 'webhook_url' } });
  if (u.username || u.password) throw new AppError('invalid_request', 'webhook_url: must not carry credentials', { metadata: { field: 'webhook_url' } });
}

const C = '/api/workspace/firewall/approvals';

export const approvalRoutes: RouteDef[] = [
  route({
    method: 'get', path: C, tag: 'approvals', summary: 'Approvals of the workspace, newest first (console).',
    auth: 'session', role: 'developer', query: StatusQuery,
    handler: async ({ deps, workspace, query }) => {
      const rows = await listApprovals(deps.pool, workspaceOf(workspace).id, query.status, query.limit ?? 100);
      // The console never sees approval tokens: they are for the agent's retry only.
      return { body: { data: await Promise.all(rows.map(async (r) => ({ ...(await viewApproval(deps, r)), approval_token: undefined }))), has_more: false } };
    },
  }),
  ...(['approve', 'reject'] as const).map((verb) =>
    route({
      method: 'post', path: `${C}/:id/${verb}`, tag: 'approvals', summary: `${verb === 'approve' ? 'Approve' : 'Reject'} a held call; an already resolved one answers 200 {already_resolved: true}.`,
      auth: 'session', role: 'developer', body: Decision,
      handler: async ({ deps, workspace, principal, params, body }) => {
        const r = await decide(deps, approvalId(params), { workspaceId: workspaceOf(workspace).id, status: verb === 'approve' ? 'approved' : 'rejected', by: 'console', resolverId: userOf(principal).id, reason: body.reason ?? null });
        const view = { ...(await viewApproval(deps, r.approval)), approval_token: undefined };
        return { body: r.already_resolved ? { already_resolved: true, ...view } : view };
      },
    }),
  ),
  route({
    method: 'get', path: '/api/workspace/settings/approvals', tag: 'approvals', summary: 'Approval webhook settings; the secret is write-only.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace }) => {
      const s = await getApprovalSettings(deps.pool, workspaceOf(workspace).id);
      return { body: { webhook_url: s.webhook_url, webhook_secret_set: s.webhook_secret_enc !== null, hold_ttl_seconds: s.hold_ttl_seconds } };
    },
  }),
  route({
    method: 'put', path: '/api/workspace/settings/approvals', tag: 'approvals', summary: 'Set the https webhook URL, the write-only secret (null clears) and the hold lifetime (60–86400 s).',
    auth: 'session', role: 'developer', body: Settings,
    handler: async ({ deps, workspace, body }) => {
      const ws = workspaceOf(workspace).id;
      if (body.webhook_url) checkWebhookUrl(body.webhook_url);
      const secretEnc = body.webhook_secret ? await encryptSecret(deps.keyring, body.webhook_secret) : undefined;
      const saved = await withTransaction(deps.pool, async (db) => {
        const cur = await getApprovalSettings(db, ws);
        const next = {
          workspace_id: ws,
          webhook_url: body.webhook_url === undefined ? cur.webhook_url : body.webhook_url,
          webhook_secret_enc: body.webhook_secret === undefined ? cur.webhook_secret_enc : body.webhook_secret === null ? null : secretEnc!,
          hold_ttl_seconds: body.hold_ttl_seconds ?? cur.hold_ttl_seconds,
        };
        await putApprovalSettings(db, next);
        return next;
      });
      return { body: { webhook_url: saved.webhook_url, webhook_secret_set: saved.webhook_secret_enc !== null, hold_ttl_seconds: saved.hold_ttl_seconds } };
    },
  }),
  route({
    method: 'get', path: '/api/workspace/firewall/webhook_deliveries', tag: 'approvals', summary: 'Webhook delivery attempts, newest first.',
    auth: 'session', role: 'developer', query: z.object({ limit: z.coerce.number().int().min(1).max(500).optional() }),
    handler: async ({ deps, workspace, query }) => ({ body: { data: await listDeliveries(deps.pool, workspaceOf(workspace).id, query.limit ?? 100), has_more: false } }),
  }),
  route({
    method: 'post', path: '/api/v1/firewall/approvals', tag: 'sidecar', summary: 'Sidecar: hold a tool call for approval (sends the signed webhook when configured).',
    auth: 'gateway', body: Hold,
    handler: async ({ deps, principal, body }) => {
      const ws = gatewayWorkspace(principal);
      return { status: 201, body: await viewApproval(deps, await createHold(deps, ws, body)) };
    },
  }),
  route({
    method: 'get', path: '/api/v1/firewall/approvals/:id', tag: 'sidecar', summary: 'Approval state; with ?wait=N (≤ 60 s) it long-polls while pending. approval_token only while approved and unused.',
    auth: 'gateway', query: Wait,
    handler: async ({ ctx, deps, principal, params, query }) => {
      const abort = new AbortController();
      ctx.req.once('close', () => abort.abort());
      const row = await pollApproval(deps, gatewayWorkspace(principal), approvalId(params), query.wait ?? 0, abort.signal);
      return { body: await viewApproval(deps, row) };
    },
  }),
  route({
    method: 'post', path: '/api/v1/firewall/approvals/consume', tag: 'sidecar', summary: 'Sidecar: consume a single-use approval token for exactly this tool call.',
    auth: 'gateway', body: Consume,
    handler: async ({ deps, principal, body }) => {
      const row = await consume(deps, gatewayWorkspace(principal), body.token, body.tool_name, body.args_hash);
      return { body: row ? { consumed: true, approval_id: row.id, policy_id: row.policy_id, rule_id: row.rule_id } : { consumed: false } };
    },
  }),
  route({
    method: 'post', path: '/api/v1/firewall/approvals/:id/callback', tag: 'approvals', summary: 'Signed decision from an external approval system (X-Service-Signature over "<id>\\n<raw body>").',
    auth: 'signature',
    handler: async ({ ctx, deps, params, rawBody }) => {
      const id = approvalId(params);
      const r = await callback(deps, id, rawBody ?? Buffer.alloc(0), ctx.get(SIGNATURE_HEADER) || undefined);
      const view = { ...(await viewApproval(deps, r.approval)), approval_token: undefined };
      return { body: r.already_resolved ? { already_resolved: true, ...view } : view };
    },
  }),
];

