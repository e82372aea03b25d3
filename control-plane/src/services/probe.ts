// An honest probe: a real MCP round trip with the decrypted credential.
// `ok` only after initialize and tools/list both succeed in time;
// `degraded` when reachable but listing fails or is slow; `down` when the
// server cannot be reached or refuses the credential.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolDefinition } from '@agentwall/shared/mcp';
import { listAllTools, scrubCredentials } from '@agentwall/shared/mcp-client';

export interface ProbeResult {
  status: 'ok' | 'degraded' | 'down';
  detail: string;
  tools: ToolDefinition[] | null;
  latency_ms: number;
}

export interface ProbeOptions {
  headers: Record<string, string>;
  /** Values that must never appear in a detail (the credential). */
  secrets: string[];
  timeoutMs?: number;
  slowMs?: number;
}

function scrub(text: string, secrets: string[]): string {
  return scrubCredentials(text, secrets, 300);
}

function httpStatusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number' && code >= 100 && code < 600) return code;
  const m = /\bHTTP (\d{3})\b|\b(401|403|404|405)\b/.exec(String((err as Error)?.message ?? ''));
  return m ? Number(m[1] ?? m[2]) : undefined;
}

async function connect(endpoint: URL, headers: Record<string, string>, timeoutMs: number): Promise<Client> {
  const attempt = async (transport: Transport) => {
    const client = new Client({ name: 'agentwall-probe', version: '0.1.0' });
    try {
      await client.connect(transport, { timeout: timeoutMs });
      return client;
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
  };
  try {
    return await attempt(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
  } catch (err) {
    // Servers that only speak the legacy HTTP+SSE transport answer the POST with 404 or 405.
    const status = httpStatusOf(err);
    if (status !== 404 && status !== 405 && status !== 400) throw err;
    return attempt(new SSEClientTransport(endpoint, { requestInit: { headers }, eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) } }));
  }
}

export async function probeServer(endpoint: string, opts: ProbeOptions): Promise<ProbeResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const slowMs = opts.slowMs ?? 2_000;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let client: Client;
  try {
    client = await connect(new URL(endpoint), opts.headers, timeoutMs);
  } catch (err) {
    const status = httpStatusOf(err);
    const why = status === 401 || status === 403 ? `authentication failed (HTTP ${status})` : `could not connect: ${causeText(err)}`;
    return { status: 'down', detail: scrub(why, opts.secrets), tools: null, latency_ms: elapsed() };
  }
  try {
    const tools = await listAllTools(client, timeoutMs);
    const ms = elapsed();
    if (ms > slowMs) return { status: 'degraded', detail: `slow: tools listed in ${ms} ms (> ${slowMs} ms)`, tools, latency_ms: ms };
    return { status: 'ok', detail: `${tools.length} tool(s) listed`, tools, latency_ms: ms };
  } catch (err) {
    return { status: 'degraded', detail: scrub(`reachable, but tool listing failed: ${causeText(err)}`, opts.secrets), tools: null, latency_ms: elapsed() };
  } finally {
    await client.close().catch(() => {});
  }
}

function causeText(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return [e?.message ?? String(err), cause].filter(Boolean).join(': ');
}
