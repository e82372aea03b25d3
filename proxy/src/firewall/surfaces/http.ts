// Entry point for the relay's response and inbound surfaces: judges the tool
// calls a model returns or an agent sends, and answers in the documented
// envelope (400 firewall_blocked / firewall_approval_pending with metadata).
// The inbound surface escalates sanitize to deny inside the engine.
import { AppError } from '@agentwall/shared/errors';
import type { FirewallRuntime } from '../runtime.js';

export interface HttpToolCall {
  name: string;
  arguments: unknown;
}

export async function checkToolCalls(
  runtime: FirewallRuntime,
  surface: 'response' | 'inbound',
  calls: readonly HttpToolCall[],
  ctx: { conversation_id?: string; request_id?: string; relay_key_id?: number; approval_token?: string },
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const call of calls) {
    const r = await runtime.judge({ surface, tool_name: call.name, arguments: call.arguments, ...ctx });
    const v = r.verdict;
    if (r.action === 'deny') {
      throw new AppError('firewall_blocked', r.message, {
        metadata: { reason_code: v.reason_code ?? 'rule_match', risk_score: v.risk_score, factors: v.factors, policy_id: v.policy_id ?? null, rule_id: v.rule_id ?? null, tool_name: v.tool_name },
      });
    }
    if (r.action === 'pending') {
      throw new AppError('firewall_approval_pending', r.message, { metadata: { ...r.approval, tool_name: call.name } });
    }
    out.push(r.arguments ?? call.arguments);
  }
  return out;
}
