// What the control plane and the sidecar must agree on about tool servers:
// the auth_json shapes, the outbound auth header, and the definition hash
// used for tool pinning.
import { canonicalHash } from './canonical-json.js';

export const AUTH_MODES = ['none', 'bearer', 'oauth', 'basic'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export type AuthJson = { token: string } | { access_token: string } | { username: string; password: string } | Record<string, never>;

/** Fields of each mode's auth_json; `secret` ones are masked on read. */
export const AUTH_FIELDS: Record<AuthMode, ReadonlyArray<{ name: string; secret: boolean }>> = {
  none: [],
  bearer: [{ name: 'token', secret: true }],
  oauth: [{ name: 'access_token', secret: true }],
  basic: [
    { name: 'username', secret: false },
    { name: 'password', secret: true },
  ],
};

/** The header attached on the outbound call only. */
export function authHeaders(mode: AuthMode, auth: Record<string, string>): Record<string, string> {
  if (mode === 'bearer' && auth['token']) return { authorization: `Bearer ${auth['token']}` };
  if (mode === 'oauth' && auth['access_token']) return { authorization: `Bearer ${auth['access_token']}` };
  if (mode === 'basic' && auth['username'] !== undefined && auth['password'] !== undefined) {
    return { authorization: `Basic ${Buffer.from(`${auth['username']}:${auth['password']}`).toString('base64')}` };
  }
  return {};
}

export interface ToolDefinition {
  name: string;
  description?: string | undefined;
  inputSchema?: unknown;
}

/** Pin hash of one tool: its description and input schema, canonicalised. */
export function toolDefinitionHash(tool: ToolDefinition): string {
  return canonicalHash({ description: tool.description ?? '', inputSchema: tool.inputSchema ?? {} });
}

export const BUILTIN_SERVER = 'builtin';

/** `<server>.<tool>` splits at the first dot: server names never contain one. */
export function splitToolName(full: string): { server: string; tool: string } | undefined {
  const dot = full.indexOf('.');
  if (dot <= 0 || dot === full.length - 1) return undefined;
  return { server: full.slice(0, dot), tool: full.slice(dot + 1) };
}
