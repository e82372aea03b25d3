// The MCP surface: the gateway's tool-call hook backed by the firewall.
import type { ToolCallHook } from '../../mcp/hook.js';
import type { FirewallRuntime } from '../runtime.js';

export function createMcpFirewallHook(runtime: FirewallRuntime): ToolCallHook {
  return async (call) => {
    const out = await runtime.judge({
      surface: 'mcp',
      tool_name: call.tool_name,
      arguments: call.arguments,
      conversation_id: call.conversation_id,
      relay_key_id: call.relay_key_id,
      approval_token: call.approval_token,
    });
    if (out.action === 'allow') return out.arguments === undefined ? { action: 'allow' } : { action: 'allow', arguments: out.arguments as Record<string, unknown> };
    const v = out.verdict;
    const metadata = { reason_code: v.reason_code ?? null, risk_score: v.risk_score, factors: v.factors, policy_id: v.policy_id ?? null, rule_id: v.rule_id ?? null, tool_name: v.tool_name };
    if (out.action === 'deny') return { action: 'deny', message: out.message, metadata };
    return { action: 'pending', message: out.message, metadata: { ...out.approval } };
  };
}
