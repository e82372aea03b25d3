// The aggregated MCP server at /mcp (Streamable HTTP, one SDK Server per
// agent session). It lists every enabled server's tools as <server>.<tool>
// plus the bundled `builtin` tools, and forwards each call through the
// firewall hook, tool pinning and schema validation to a pooled upstream
// session. Failures come back as MCP errors or tool errors, never as a
// crash or a hung session.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, isInitializeRequest, type CallToolResult, type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { BundleToolServer } from '@agentwall/shared/bundle';
import { canonicalHash } from '@agentwall/shared/canonical-json';
import { BUILTIN_SERVER, splitToolName, toolDefinitionHash, type ToolDefinition } from '@agentwall/shared/mcp';
import type { Snapshot } from '../sync/snapshot.js';
import type { UpstreamPool } from './upstream.js';
import type { ToolCallHook } from './hook.js';
import { BUILTIN_DEFINITIONS, callBuiltin } from './builtin.js';

export interface GatewayOptions {
  log: Logger;
  snapshot: () => Snapshot | undefined;
  pool: UpstreamPool;
  hook: () => ToolCallHook;
  callTimeoutMs?: number;
  listTimeoutMs?: number;
  idleSessionMs?: number;
  maxSessions?: number;
}

interface Session {
  id: string;
  keyId: number;
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

const CHANGED_NOTE = '[agentwall: this tool\'s definition changed since it was pinned; calls are denied until a developer accepts the new definition]';

function toolError(text: string, extra: Partial<CallToolResult> = {}): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, ...extra };
}

export function toolServers(s: Snapshot | undefined): BundleToolServer[] {
  const v = s?.bundle['tool_servers'];
  return Array.isArray(v) ? (v as BundleToolServer[]) : [];
}

export function createGateway(opts: GatewayOptions) {
  const sessions = new Map<string, Session>();
  const validators = new Map<string, (input: unknown) => { valid: boolean; errorMessage?: string | undefined }>();
  const ajv = new AjvJsonSchemaValidator();
  // Trust-on-first-use pins for servers the control plane has not pinned yet, per server version.
  const localPins = new Map<string, Record<string, string>>();
  const callTimeout = opts.callTimeoutMs ?? 60_000;
  const listTimeout = opts.listTimeoutMs ?? 5_000;
  const idleMs = opts.idleSessionMs ?? 30 * 60_000;
  const maxSessions = opts.maxSessions ?? 10_000;

  function pinsFor(server: BundleToolServer, tools: ToolDefinition[]): Record<string, string> {
    if (server.pinned_tools) return server.pinned_tools;
    let pins = localPins.get(server.version);
    if (!pins) {
      pins = Object.fromEntries(tools.map((t) => [t.name, toolDefinitionHash(t)]));
      localPins.set(server.version, pins);
    }
    return pins;
  }

  function changed(server: BundleToolServer, tools: ToolDefinition[], tool: ToolDefinition): boolean {
    return pinsFor(server, tools)[tool.name] !== toolDefinitionHash(tool);
  }

  async function listAll(): Promise<Tool[]> {
    const out: Tool[] = BUILTIN_DEFINITIONS.map((t) => ({ name: `${BUILTIN_SERVER}.${t.name}`, description: t.description, inputSchema: t.inputSchema }));
    const servers = toolServers(opts.snapshot());
    const listed = await Promise.allSettled(servers.map((s) => opts.pool.listTools(s, listTimeout)));
    servers.forEach((server, i) => {
      const r = listed[i]!;
      if (r.status === 'rejected') {
        opts.log.warn({ server: server.name, reason: opts.pool.scrub(server, String((r.reason as Error)?.message ?? r.reason)) }, 'tool server listing failed; its tools are left out');
        return;
      }
      for (const t of r.value) {
        const isChanged = changed(server, r.value, t);
        out.push({
          name: `${server.name}.${t.name}`,
          description: isChanged ? CHANGED_NOTE : t.description,
          inputSchema: (t.inputSchema as Tool['inputSchema']) ?? { type: 'object' },
        });
      }
    });
    return out;
  }

  function validate(schema: unknown, args: unknown): string | undefined {
    if (!schema || typeof schema !== 'object') return undefined;
    const key = canonicalHash(schema);
    let v = validators.get(key);
    if (!v) {
      try {
        v = ajv.getValidator(schema as Parameters<typeof ajv.getValidator>[0]);
      } catch {
        // A schema the validator cannot compile is the upstream's to enforce.
        v = () => ({ valid: true });
      }
      validators.set(key, v);
    }
    const r = v(args);
    return r.valid ? undefined : (r.errorMessage ?? 'arguments do not match the input schema');
  }

  async function callTool(session: Session, name: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined, headerToken: string | undefined): Promise<CallToolResult> {
    const split = splitToolName(name);
    if (!split) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 200)}`);
    let definition: ToolDefinition | undefined;
    let server: BundleToolServer | undefined;
    if (split.server === BUILTIN_SERVER) {
      definition = BUILTIN_DEFINITIONS.find((t) => t.name === split.tool);
    } else {
      server = toolServers(opts.snapshot()).find((s) => s.name === split.server);
      if (server) {
        let tools: ToolDefinition[];
        try {
          tools = await opts.pool.cachedTools(server, listTimeout);
        } catch (err) {
          return toolError(`upstream_error: tool server "${server.name}" is unreachable: ${opts.pool.scrub(server, (err as Error).message ?? '')}`.slice(0, 500));
        }
        definition = tools.find((t) => t.name === split.tool);
        if (definition && changed(server, tools, definition)) {
          return toolError(`firewall deny: tool_definition_changed: the definition of ${name} differs from the pinned one; a developer must accept it before it can be called`, {
            structuredContent: { reason_code: 'tool_definition_changed', tool_name: name },
          });
        }
      }
    }
    if (!definition) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 200)}`);
    const invalid = validate(definition.inputSchema, args);
    if (invalid) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${name}: ${invalid}`.slice(0, 1000));
    const token = meta?.['x-service-firewall-approval'] ?? headerToken;
    const verdict = await opts.hook()({
      surface: 'mcp',
      tool_name: name,
      arguments: args,
      relay_key_id: session.keyId,
      conversation_id: session.id,
      approval_token: typeof token === 'string' ? token : undefined,
    });
    if (verdict.action === 'deny') return toolError(verdict.message, verdict.metadata ? { structuredContent: verdict.metadata } : {});
    if (verdict.action === 'pending') return toolError(verdict.message, { structuredContent: verdict.metadata, _meta: verdict.metadata });
    const forwarded = verdict.arguments ?? args;
    if (!server) return (await callBuiltin(split.tool, forwarded)) ?? toolError(`Unknown tool: ${name}`);
    try {
      return await opts.pool.callTool(server, split.tool, forwarded, callTimeout);
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        return toolError(`upstream_timeout: ${name} did not answer within ${callTimeout} ms`);
      }
      if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed) {
        throw new McpError(err.code, opts.pool.scrub(server, err.message).slice(0, 1000));
      }
      return toolError(`upstream_error: ${opts.pool.scrub(server, (err as Error)?.message ?? String(err))}`.slice(0, 500));
    }
  }

  function newSession(keyId: number): Session {
    const server = new Server({ name: 'agentwall', version: '0.1.0' }, { capabilities: { tools: { listChanged: true } } });
    const session = { keyId, server, lastSeen: Date.now() } as Session;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        session.id = id;
        sessions.set(id, session);
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    session.transport = transport;
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listAll() }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const header = extra.requestInfo?.headers['x-service-firewall-approval'];
      return callTool(session, req.params.name, req.params.arguments ?? {}, req.params._meta as Record<string, unknown> | undefined, typeof header === 'string' ? header : undefined);
    });
    server.onerror = (err) => opts.log.debug({ reason: err.message }, 'mcp session error');
    return session;
  }

  function sweep(now = Date.now()): void {
    for (const [id, s] of sessions) {
      if (now - s.lastSeen > idleMs) {
        sessions.delete(id);
        void s.transport.close().catch(() => {});
      }
    }
  }
  const sweeper = setInterval(() => sweep(), 60_000);
  sweeper.unref();

  function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
    const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  return {
    /** Handles one HTTP request to /mcp for an authenticated relay key; `body` is the parsed POST body. */
    async handle(req: IncomingMessage, res: ServerResponse, keyId: number, body: unknown): Promise<void> {
      const sid = req.headers['mcp-session-id'];
      if (typeof sid === 'string' && sid) {
        const s = sessions.get(sid);
        // Unknown, expired, or another key's session: 404 tells the client to initialize again.
        if (!s || s.keyId !== keyId) return rpcError(res, 404, -32001, 'Session not found');
        s.lastSeen = Date.now();
        await s.transport.handleRequest(req, res, body);
        return;
      }
      if (req.method !== 'POST') return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      const first = Array.isArray(body) ? body[0] : body;
      if (!isInitializeRequest(first)) return rpcError(res, 400, -32000, 'Bad Request: no session; send initialize first');
      if (sessions.size >= maxSessions) sweep(Date.now() + idleMs / 2);
      if (sessions.size >= maxSessions) return rpcError(res, 503, -32000, 'Too many MCP sessions');
      const s = newSession(keyId);
      await s.server.connect(s.transport);
      await s.transport.handleRequest(req, res, body);
    },
    /** Tells every session that the tool list changed. */
    notifyToolsChanged(): void {
      for (const s of sessions.values()) void s.server.sendToolListChanged().catch(() => {});
    },
    sessionCount: () => sessions.size,
    async close(): Promise<void> {
      clearInterval(sweeper);
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((s) => s.transport.close().catch(() => {})));
    },
  };
}

export type Gateway = ReturnType<typeof createGateway>;

/** Fingerprint of what the tool list depends on in a snapshot. */
export function toolSetFingerprint(s: Snapshot | undefined): string {
  return toolServers(s).map((t) => `${t.name}@${t.version}#${t.pinned_tools ? canonicalHash(t.pinned_tools) : '-'}`).join('|');
}
