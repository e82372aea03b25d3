// Approval holds (spec "Firewall approval" states, CONTRACT §7). Decisions
// are one conditional UPDATE (first writer wins); every transition is an
// audit event written in the same transaction and a NOTIFY that wakes
// long-polls on every replica. Approving mints a single-use token bound to
// the tool name and (mcp, egress) the argument hash.
import { randomBytes } from 'node:crypto';
import { AppError } from '@agentwall/shared/errors';
import { decryptSecret, encryptSecret, sha256Hex } from '@agentwall/shared/crypto';
import { signCallback, signatureMatches } from '@agentwall/shared/signatures';
import type { Deps } from '../deps.js';
import { withTransaction, type Queryable } from '../db/pool.js';
import {
  consumeToken, expireDue, findApproval, getApprovalSettings, insertApproval, resolveApproval, type ApprovalRow,
} from '../db/queries/approvals.js';
import { audit } from './audit.js';
import { waitFor } from './notify.js';
import { sendPendingWebhook } from './webhooks.js';

export const APPROVAL_CHANNEL = 'agentwall_approval';

async function notify(db: Queryable, id: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [APPROVAL_CHANNEL, id]);
}

function transition(a: ApprovalRow): Record<string, unknown> {
  return { approval_id: a.id, tool_name: a.tool_name, status: a.status, resolved_by: a.resolved_by, reason: a.reason, policy_id: a.policy_id, rule_id: a.rule_id, conversation_id: a.conversation_id };
}

/** What a sidecar sends to place a hold: the approval row's call fields. */
export type HoldInput = Pick<ApprovalRow, 'surface' | 'tool_name' | 'args_hash' | 'request_id' | 'conversation_id' | 'policy_id' | 'rule_id' | 'relay_key_id'>;

export async function createHold(deps: Deps, workspaceId: number, input: HoldInput): Promise<ApprovalRow> {
  const settings = await getApprovalSettings(deps.pool, workspaceId);
  const row = await withTransaction(deps.pool, async (db) => {
    const created = await insertApproval(db, { ...input, id: `apr_${randomBytes(16).toString('base64url')}`, workspace_id: workspaceId, ttl_seconds: settings.hold_ttl_seconds });
    await audit(db, workspaceId, 'approval.pending', transition(created));
    return created;
  });
  // Best-effort routing signal: never blocks or fails the hold.
  void sendPendingWebhook(deps, row).catch((err) => deps.log.warn({ reason: (err as Error).message }, 'approval webhook failed'));
  return row;
}

/** Lazily expires one overdue hold so reads never report a stale `pending`. */
async function expireIfDue(deps: Deps, row: ApprovalRow): Promise<ApprovalRow> {
  if (row.status !== 'pending' || row.expires_at.getTime() > Date.now()) return row;
  const [expired] = await withTransaction(deps.pool, async (db) => {
    const rows = await expireDue(db, row.id);
    for (const r of rows) {
      await audit(db, r.workspace_id, 'approval.expired', transition(r));
      await notify(db, r.id);
    }
    return rows;
  });
  return expired ?? (await findApproval(deps.pool, row.id)) ?? row;
}

export async function viewApproval(deps: Deps, a: ApprovalRow) {
  const usable = a.status === 'approved' && a.token_consumed_at === null && a.token_enc !== null;
  return {
    id: a.id,
    status: a.status,
    tool_name: a.tool_name,
    request_id: a.request_id,
    conversation_id: a.conversation_id,
    policy_id: a.policy_id,
    rule_id: a.rule_id,
    created_at: a.created_at,
    expires_at: a.expires_at,
    resolved_at: a.resolved_at,
    resolved_by: a.resolved_by,
    reason: a.reason,
    approval_token: usable ? await decryptSecret(deps.keyring, a.token_enc!) : null,
  };
}

export async function getApproval(deps: Deps, workspaceId: number, id: string): Promise<ApprovalRow> {
  const row = await findApproval(deps.pool, id, workspaceId);
  if (!row) throw new AppError('not_found', 'Approval not found.');
  return expireIfDue(deps, row);
}

/** Answers at once unless pending; else when decided, or after waitS seconds. */
export async function pollApproval(deps: Deps, workspaceId: number, id: string, waitS: number, signal?: AbortSignal): Promise<ApprovalRow> {
  const row = await getApproval(deps, workspaceId, id);
  if (row.status !== 'pending' || waitS <= 0) return row;
  const untilExpiry = Math.max(0, row.expires_at.getTime() - Date.now()) + 50;
  const decided = await waitFor(
    deps.notify,
    APPROVAL_CHANNEL,
    (p) => p === id,
    async () => {
      const r = await findApproval(deps.pool, id, workspaceId);
      return r && r.status !== 'pending' ? r : undefined;
    },
    Math.min(waitS * 1000, untilExpiry),
    signal,
  );
  return decided ?? (await getApproval(deps, workspaceId, id));
}

export async function decide(
  deps: Deps,
  id: string,
  d: { workspaceId?: number; status: 'approved' | 'rejected'; by: 'console' | 'callback'; resolverId: number | null; reason: string | null },
): Promise<{ already_resolved: boolean; approval: ApprovalRow }> {
  const existing = await findApproval(deps.pool, id, d.workspaceId);
  if (!existing) throw new AppError('not_found', 'Approval not found.');
  await expireIfDue(deps, existing);
  const token = d.status === 'approved' ? `apt_${randomBytes(24).toString('base64url')}` : null;
  const tokenEnc = token ? await encryptSecret(deps.keyring, token) : null;
  const resolved = await withTransaction(deps.pool, async (db) => {
    const r = await resolveApproval(db, id, { status: d.status, by: d.by, resolver_id: d.resolverId, reason: d.reason, token_hash: token ? sha256Hex(token) : null, token_enc: tokenEnc });
    if (r) {
      await audit(db, r.workspace_id, `approval.${d.status}`, transition(r));
      await notify(db, r.id);
    }
    return r;
  });
  if (resolved) return { already_resolved: false, approval: resolved };
  return { already_resolved: true, approval: (await findApproval(deps.pool, id))! };
}

/** The signed machine callback: signature over "<id>\n<raw body>" with the workspace's webhook secret. */
export async function callback(deps: Deps, id: string, rawBody: Buffer, signature: string | undefined) {
  const row = await findApproval(deps.pool, id);
  if (!row) throw new AppError('not_found', 'Approval not found.');
  const settings = await getApprovalSettings(deps.pool, row.workspace_id);
  const secret = settings.webhook_secret_enc ? await decryptSecret(deps.keyring, settings.webhook_secret_enc) : undefined;
  if (!secret || !signatureMatches(signCallback(secret, id, rawBody), signature)) {
    throw new AppError('invalid_signature', 'Missing or invalid X-Service-Signature.');
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON.');
  }
  const b = body as { decision?: unknown; reason?: unknown };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_request', 'body: expected an object {decision, reason?}');
  const extra = Object.keys(b).filter((k) => k !== 'decision' && k !== 'reason');
  if (extra.length > 0) throw new AppError('invalid_request', `${extra[0]}: unknown field`);
  if (b.decision !== 'approved' && b.decision !== 'rejected') throw new AppError('invalid_request', 'decision: must be "approved" or "rejected"');
  if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > 2000)) throw new AppError('invalid_request', 'reason: must be a string of at most 2000 characters');
  return decide(deps, id, { status: b.decision, by: 'callback', resolverId: null, reason: (b.reason as string | undefined) ?? null });
}

/** Atomically consumes an approval token for exactly this call; false means hold again. */
export async function consume(deps: Deps, workspaceId: number, token: string, toolName: string, argsHash: string | null): Promise<ApprovalRow | undefined> {
  return withTransaction(deps.pool, async (db) => {
    const r = await consumeToken(db, workspaceId, sha256Hex(token), toolName, argsHash);
    if (r) await audit(db, workspaceId, 'approval.token_consumed', transition(r));
    return r;
  });
}

export async function expireSweep(deps: Deps): Promise<number> {
  return withTransaction(deps.pool, async (db) => {
    const rows = await expireDue(db);
    for (const r of rows) {
      await audit(db, r.workspace_id, 'approval.expired', transition(r));
      await notify(db, r.id);
    }
    return rows.length;
  });
}
