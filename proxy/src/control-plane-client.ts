// The sidecar's few calls to the control plane besides the bundle: approval
// holds and token consumption (only on held calls), and audit shipping.
import type { SpoolEvent } from './spool/spool.js';

export interface ApprovalView {
  id: string;
  status: string;
  expires_at: string;
}

export interface ControlPlaneClient {
  createHold(input: {
    surface: string; tool_name: string; args_hash: string | null; request_id: string | null; conversation_id: string | null; policy_id: number | null; rule_id: number | null; relay_key_id: number | null;
  }): Promise<ApprovalView>;
  consume(token: string, toolName: string, argsHash: string | null): Promise<boolean>;
  shipAudit(events: SpoolEvent[]): Promise<void>;
}

export function createControlPlaneClient(baseUrl: string, gatewayKey: string): ControlPlaneClient {
  const base = baseUrl.replace(/\/+$/, '');
  async function post<T>(path: string, body: unknown): Promise<T> {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${gatewayKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`control plane answered ${res.status} on ${path}`);
    return JSON.parse(text) as T;
  }
  return {
    createHold: (input) => post<ApprovalView>('/api/v1/firewall/approvals', input),
    consume: async (token, toolName, argsHash) => (await post<{ consumed: boolean }>('/api/v1/firewall/approvals/consume', { token, tool_name: toolName, args_hash: argsHash })).consumed,
    shipAudit: async (events) => void (await post('/api/v1/audit/events', { events })),
  };
}
