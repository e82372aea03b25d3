// Signed approval webhooks (spec "Events", CONTRACT §7): HTTPS only, skipped
// entirely without a secret, signed over the exact bytes sent, 10 s timeout,
// up to 3 attempts (1 s, 5 s back-off) on network errors and 5xx, every
// attempt recorded. The payload never carries tool arguments.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { decryptSecret } from '@agentwall/shared/crypto';
import { signWebhook, SIGNATURE_HEADER } from '@agentwall/shared/signatures';
import type { Deps } from '../deps.js';
import { getApprovalSettings, insertDelivery, type ApprovalRow } from '../db/queries/approvals.js';

export const PENDING_EVENT = 'firewall.approval.pending';
const TIMEOUT_MS = 10_000;
const BACKOFF_MS = [1_000, 5_000];

// One keep-alive dispatcher per trust configuration (the extra CA file, if any).
const dispatchers = new Map<string, Agent>();
function dispatcher(deps: Deps): Agent {
  const file = deps.settings.AGENTWALL_WEBHOOK_CA_FILE ?? '';
  let agent = dispatchers.get(file);
  if (!agent) {
    agent = new Agent({ connect: { ...(file ? { ca: readFileSync(file, 'utf8') } : {}), timeout: TIMEOUT_MS }, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    dispatchers.set(file, agent);
  }
  return agent;
}

/** RFC 3339 UTC with nanosecond precision. */
export function nanoTimestamp(now = new Date(), extraNs = Number(process.hrtime.bigint() % 1_000_000n)): string {
  return now.toISOString().replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms}${String(extraNs).padStart(6, '0')}Z`);
}

export function pendingEnvelope(a: ApprovalRow): Record<string, unknown> {
  return {
    event: PENDING_EVENT,
    workspace_id: a.workspace_id,
    occurred_at: nanoTimestamp(),
    data: {
      approval_id: a.id,
      tool_name: a.tool_name,
      request_id: a.request_id,
      conversation_id: a.conversation_id,
      policy_id: a.policy_id,
      rule_id: a.rule_id,
    },
  };
}

export async function sendPendingWebhook(deps: Deps, approval: ApprovalRow, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<void> {
  const settings = await getApprovalSettings(deps.pool, approval.workspace_id);
  // With a URL but no secret nothing is sent: the callback accepts only signed requests.
  if (!settings.webhook_url || !settings.webhook_secret_enc) return;
  const secret = await decryptSecret(deps.keyring, settings.webhook_secret_enc);
  const body = Buffer.from(JSON.stringify(pendingEnvelope(approval)));
  const headers = { 'content-type': 'application/json', 'x-service-event': PENDING_EVENT, [SIGNATURE_HEADER]: signWebhook(secret, body), 'user-agent': 'agentwall-webhook/0.1' };
  for (let attempt = 1; attempt <= 3; attempt++) {
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await request(settings.webhook_url, { method: 'POST', headers, body, dispatcher: dispatcher(deps), signal: AbortSignal.timeout(TIMEOUT_MS) });
      status = res.statusCode;
      await res.body.dump();
    } catch (err) {
      error = (err as { code?: string }).code ?? (err as Error).name ?? 'network error';
    }
    await insertDelivery(deps.pool, { workspace_id: approval.workspace_id, approval_id: approval.id, event: PENDING_EVENT, url: settings.webhook_url, attempt, status_code: status, error, duration_ms: Math.round(performance.now() - started) }).catch(() => {});
    const retry = error !== null || (status !== null && status >= 500);
    if (!retry || attempt === 3) return;
    await sleep(BACKOFF_MS[attempt - 1] ?? 5_000);
  }
}
