// Real MCP servers built with the official SDK, on loopback, for tests: each
// demands one auth mode and records the credentials it receives.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { freePort } from '@agentwall/control-plane/db/embedded';
import type { T } from './tap.js';

export interface TestMcpServer {
  url: string;
  /** Authorization headers received, in order. */
  received: string[];
  calls: Array<{ tool: string; args: unknown }>;
  /** Changes the echo tool's description (a rug pull). */
  setEchoDescription(d: string): void;
  /** Makes tools/list fail (listing broken) or slow. */
  setListing(mode: 'ok' | 'fail' | { delayMs: number }): void;
}

export interface ServerOptions {
  /** Expected Authorization header; anything else gets 401. */
  expectAuth?: string;
  legacySse?: boolean;
}

function build(state: { echoDescription: string; listing: 'ok' | 'fail' | { delayMs: number }; calls: TestMcpServer['calls'] }): McpServer {
  const server = new McpServer({ name: 'test-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: state.echoDescription, inputSchema: { text: z.string() } }, async ({ text }) => {
    state.calls.push({ tool: 'echo', args: { text } });
    return { content: [{ type: 'text', text }] };
  });
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    state.calls.push({ tool: 'add', args: { a, b } });
    return { content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } };
  });
  server.registerTool('hang', { description: 'Never answers', inputSchema: {} }, async () => {
    state.calls.push({ tool: 'hang', args: {} });
    return new Promise(() => {});
  });
  server.registerTool('shell', { description: 'Run a command', inputSchema: { command: z.string() } }, async ({ command }) => {
    state.calls.push({ tool: 'shell', args: { command } });
    return { content: [{ type: 'text', text: `ran: ${command}` }] };
  });
  // Wrap tools/list to simulate broken or slow listings.
  const inner = server.server;
  const original = (inner as unknown as { _requestHandlers: Map<string, (req: unknown, extra: unknown) => Promise<unknown>> })._requestHandlers;
  const list = original.get('tools/list');
  if (list) {
    original.set('tools/list', async (req, extra) => {
      if (state.listing === 'fail') throw new Error('listing is broken');
      if (typeof state.listing === 'object') await new Promise((r) => setTimeout(r, (state.listing as { delayMs: number }).delayMs));
      return list(req, extra);
    });
  }
  return server;
}

export async function startMcpServer(t: T, opts: ServerOptions = {}): Promise<TestMcpServer> {
  const received: string[] = [];
  const state = { echoDescription: 'Echo the text back', listing: 'ok' as 'ok' | 'fail' | { delayMs: number }, calls: [] as TestMcpServer['calls'] };
  const sse = new Map<string, SSEServerTransport>();
  const httpServer = http.createServer(async (req, res) => {
    const auth = req.headers.authorization ?? '';
    received.push(auth);
    if (opts.expectAuth !== undefined && auth !== opts.expectAuth) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    try {
      if (opts.legacySse) {
        const url = new URL(req.url ?? '/', 'http://x');
        if (req.method === 'GET') {
          const transport = new SSEServerTransport('/messages', res);
          sse.set(transport.sessionId, transport);
          res.on('close', () => sse.delete(transport.sessionId));
          await build(state).connect(transport);
          return;
        }
        const transport = sse.get(url.searchParams.get('sessionId') ?? '');
        if (req.method === 'POST' && url.pathname === '/messages' && transport) return void (await transport.handlePostMessage(req, res));
        res.writeHead(404).end();
        return;
      }
      // Stateless Streamable HTTP: a fresh server and transport per request.
      const server = build(state);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => {
    httpServer.closeAllConnections();
    httpServer.close(() => r());
  }));
  const port = (httpServer.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${opts.legacySse ? '/sse' : '/mcp'}`,
    received,
    calls: state.calls,
    setEchoDescription: (d) => void (state.echoDescription = d),
    setListing: (m) => void (state.listing = m),
  };
}

/** The published reference server, in its Streamable HTTP mode. */
export async function startEverything(t: T): Promise<string> {
  const port = await freePort();
  const bin = new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url);
  const child = spawn(process.execPath, [bin.pathname, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}/mcp`;
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    const ok = await fetch(url, { method: 'GET' }).then(() => true, () => false);
    if (ok) return url;
    if (child.exitCode !== null) throw new Error('server-everything exited');
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server-everything did not start');
}
