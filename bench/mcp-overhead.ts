// Added latency of a tool call through the sidecar's MCP gateway, against a
// direct call to the same upstream server, measured in the same run with
// the two paths interleaved in blocks (the machine is shared and noisy).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { loadSettings } from '@agentwall/shared/config';
import { createLogger } from '@agentwall/shared/log';
import { startControlPlane } from '@agentwall/control-plane/main';
import { startSidecar } from '@agentwall/proxy/main';
import { isMain, summarize } from './lib.js';
import { setMaxListeners } from 'node:events';

// The SDK client's global-fetch transport adds a listener per request to one
// long-lived abort signal (freed only by GC): silence the warning, not a leak in the sidecar.
setMaxListeners(0);

/** A stateful upstream: one SDK server per session, as real tool servers run. */
async function startUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!transport && isInitializeRequest(body)) {
      const mcp = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
      mcp.registerTool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
      const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true, onsessioninitialized: (id) => void transports.set(id, t) });
      await mcp.connect(t);
      transport = t;
    }
    if (!transport) return void res.writeHead(404).end();
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

async function timeCalls(client: Client, name: string, n: number, out: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await client.callTool({ name, arguments: { text: 'x'.repeat(64) } });
    out.push(performance.now() - t0);
  }
}

export async function runMcpBench(calls = 2000): Promise<Array<{ name: string; p50_ms: number; p99_ms: number }>> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'agentwall-bench-'));
  const settings = loadSettings({ AGENTWALL_DATA_DIR: dataDir, AGENTWALL_ADMIN_PASSWORD: 'bench-password', AGENTWALL_LOG_LEVEL: 'silent' });
  const log = createLogger({ name: 'bench', level: 'silent' });
  const cp = await startControlPlane(settings, { log, withSidecarKeys: true, port: 0 });
  const sidecar = await startSidecar(settings, { controlPlaneUrl: cp.url, gatewayKey: cp.bootstrap!.gateway_key!, log, port: 0, egressPort: 0 });
  const upstream = await startUpstream();
  try {
    await sidecar.deps.sync.ready;
    const login = await (await fetch(`${cp.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@localhost', password: 'bench-password' }) })).json() as { token: string };
    await fetch(`${cp.url}/api/workspace/firewall/mcp_servers`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${login.token}` }, body: JSON.stringify({ name: 'up', endpoint: upstream.url }) });
    const rev = sidecar.deps.sync.current()!.revision;
    while (sidecar.deps.sync.current()!.revision === rev) await new Promise((r) => setTimeout(r, 10));

    const direct = new Client({ name: 'bench-direct', version: '1' });
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    const via = new Client({ name: 'bench-via', version: '1' });
    await via.connect(new StreamableHTTPClientTransport(new URL(`${sidecar.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${cp.bootstrap!.relay_key}` } } }));
    await via.listTools();

    const d: number[] = [];
    const v: number[] = [];
    await timeCalls(direct, 'echo', 200, []); // warm-up
    await timeCalls(via, 'up.echo', 200, []);
    const block = 100;
    for (let done = 0; done < calls; done += block) {
      await timeCalls(direct, 'echo', block, d);
      await timeCalls(via, 'up.echo', block, v);
    }
    await direct.close();
    await via.close();
    const sd = summarize(d);
    const sv = summarize(v);
    return [
      { name: 'MCP tool call, direct to upstream', p50_ms: sd.p50, p99_ms: sd.p99 },
      { name: 'MCP tool call, through the sidecar', p50_ms: sv.p50, p99_ms: sv.p99 },
      { name: 'MCP added by the sidecar', p50_ms: sv.p50 - sd.p50, p99_ms: sv.p99 - sd.p99 },
    ];
  } finally {
    await upstream.close();
    await sidecar.close();
    await cp.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const rows = await runMcpBench(Number(process.env['BENCH_CALLS'] ?? 2000));
  console.log('| path | p50 (ms) | p99 (ms) |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.p50_ms.toFixed(3)} | ${r.p99_ms.toFixed(3)} |`);
  process.exit(0);
}
