// Helpers for the official MCP client shared by the control plane's probe and
// the sidecar's pooled upstream sessions.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolDefinition } from './mcp.js';

/** Every page of tools/list (bounded), as definitions. */
export async function listAllTools(client: Client, timeoutMs: number): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    for (const t of page.tools) tools.push({ name: t.name, description: t.description, inputSchema: t.inputSchema });
    cursor = page.nextCursor;
  } while (cursor && tools.length < 10_000);
  return tools;
}

/** Removes credential values (and header forms derived from them) from text bound for a user. */
export function scrubCredentials(text: string, secrets: readonly string[], max = 500): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('****');
  out = out.replace(/(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 ****');
  return out.length > max ? `${out.slice(0, max - 3)}...` : out;
}
