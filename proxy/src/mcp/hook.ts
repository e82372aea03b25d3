// The one function every forwarded tool call passes through. The firewall
// supplies the real one; until a bundle carries policies it allows.
export interface ToolCallContext {
  surface: 'mcp';
  tool_name: string;
  arguments: Record<string, unknown>;
  relay_key_id: number;
  conversation_id: string | undefined;
  /** `_meta["x-service-firewall-approval"]` or the HTTP header, when the agent re-sends a held call. */
  approval_token: string | undefined;
}

export type ToolVerdict =
  | { action: 'allow'; arguments?: Record<string, unknown> }
  | { action: 'deny'; message: string; metadata?: Record<string, unknown> }
  | { action: 'pending'; message: string; metadata: Record<string, unknown> };

export type ToolCallHook = (call: ToolCallContext) => Promise<ToolVerdict>;

export const allowAll: ToolCallHook = async () => ({ action: 'allow' });
