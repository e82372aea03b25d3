// Wires the sidecar's HTTP surfaces. Never listens; main.ts does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AppError } from '@agentwall/shared/errors';
import type { BundleRelayKey } from '@agentwall/shared/bundle';
import { sendError, sendJson, surfaceOf } from './respond.js';
import { authenticateRelayKey, presentedRelayKey } from './auth.js';
import { createRateLimiter } from './ratelimit.js';
import type { ApiForwarder } from './forward.js';
import type { BundleSync } from './sync/bundle-client.js';
import type { Snapshot } from './sync/snapshot.js';
import type { SidecarMetrics } from './metrics.js';
import type { SecretOpener } from './secrets.js';
import { SIDECAR_OPENAPI } from './openapi.js';
import type { Gateway } from './mcp/gateway.js';
import { readBody } from '@agentwall/shared/http-body';

export interface SidecarDeps {
  log: Logger;
  sync: BundleSync;
  forwarder: ApiForwarder;
  metrics: SidecarMetrics;
  secrets: SecretOpener;
  gateway: Gateway;
}

/** An authenticated relay request, handed to a /v1 route. */
export interface RelayContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  key: BundleRelayKey;
  snapshot: Snapshot;
  deps: SidecarDeps;
}

export type RelayHandler = (c: RelayContext) => Promise<void>;

export interface RelayRoute {
  method: string;
  /** Exact path, or a prefix ending in '/'. */
  path: string;
  handler: RelayHandler;
}

const MCP_BODY_LIMIT = 4 * 1024 * 1024;

const listModels: RelayHandler = async ({ res, snapshot }) => {
  const models = Array.isArray(snapshot.bundle['models']) ? snapshot.bundle['models'] : [];
  sendJson(res, 200, { object: 'list', data: models });
};

export const RELAY_ROUTES: RelayRoute[] = [{ method: 'GET', path: '/v1/models', handler: listModels }];

export function createSidecar(deps: SidecarDeps, routes: RelayRoute[] = RELAY_ROUTES) {
  const limiter = createRateLimiter();

  async function relay(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const snapshot = deps.sync.current();
    if (!snapshot) throw new AppError('service_unavailable', 'The sidecar has no verified config bundle yet.', { headers: { 'retry-after': '1' } });
    const key = authenticateRelayKey(snapshot, presentedRelayKey(req, url));
    const matches = routes.filter((r) => (r.path.endsWith('/') ? url.pathname.startsWith(r.path) : url.pathname === r.path));
    const found = matches.find((r) => r.method === req.method);
    if (!found) {
      if (matches.length > 0) throw new AppError('method_not_allowed', `${req.method} is not allowed here.`, { headers: { allow: [...new Set(matches.map((m) => m.method))].join(', ') } });
      throw new AppError('not_found', `No route ${req.method} ${url.pathname}.`);
    }
    limiter.take(key.id, key.rate_limit_rpm);
    await found.handler({ req, res, url, key, snapshot, deps });
  }

  // /mcp: relay-key authenticated; protocol errors are JSON-RPC error objects.
  async function mcp(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const rpc = (status: number, code: number, message: string) => sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
    const snapshot = deps.sync.current();
    if (!snapshot) return rpc(503, -32000, 'The sidecar has no verified config bundle yet.');
    let key: BundleRelayKey;
    try {
      key = authenticateRelayKey(snapshot, presentedRelayKey(req, url));
    } catch (err) {
      return rpc(401, -32001, err instanceof AppError ? err.message : 'Unauthorized');
    }
    try {
      limiter.take(key.id, key.rate_limit_rpm);
    } catch (err) {
      res.setHeader('retry-after', (err as AppError).headers?.['retry-after'] ?? '60');
      return rpc(429, -32000, (err as AppError).message);
    }
    let body: unknown;
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readBody(req, MCP_BODY_LIMIT);
      } catch {
        return rpc(413, -32600, `Request body exceeds ${MCP_BODY_LIMIT} bytes`);
      }
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return rpc(400, -32700, 'Parse error: body is not valid JSON');
      }
    } else if (req.method !== 'GET' && req.method !== 'DELETE') {
      res.setHeader('allow', 'GET, POST, DELETE');
      return rpc(405, -32000, 'Method not allowed');
    }
    await deps.gateway.handle(req, res, key.id, body);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sidecar');
    } catch {
      url = new URL('http://sidecar/');
    }
    const path = url.pathname;
    let routeLabel = 'unmatched';
    res.once('finish', () => {
      deps.metrics.requests.inc({ method: req.method ?? '', route: routeLabel, status: String(res.statusCode) });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.duration.observe({ method: req.method ?? '', route: routeLabel }, seconds);
      deps.log.debug({ method: req.method, path, status: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
    });
    try {
      if (path === '/api' || path.startsWith('/api/')) {
        routeLabel = '/api/*';
        deps.forwarder.forward(req, res);
        return;
      }
      if (path === '/healthz') {
        routeLabel = path;
        return sendJson(res, 200, { status: 'ok' });
      }
      if (path === '/readyz') {
        routeLabel = path;
        const s = deps.sync.current();
        if (!s) throw new AppError('service_unavailable', 'No verified config bundle yet.');
        return sendJson(res, 200, { status: 'ready', revision: s.revision });
      }
      if (path === '/metrics') {
        routeLabel = path;
        const body = await deps.metrics.registry.metrics();
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        res.end(body);
        return;
      }
      if (path === '/openapi.json') {
        routeLabel = path;
        return sendJson(res, 200, SIDECAR_OPENAPI);
      }
      if (path === '/mcp') {
        routeLabel = path;
        await mcp(req, res, url);
        return;
      }
      if (path === '/v1' || path.startsWith('/v1/') || path.startsWith('/v1beta/')) {
        routeLabel = path.startsWith('/v1beta/') ? '/v1beta/*' : path;
        await relay(req, res, url);
        return;
      }
      throw new AppError('not_found', `No route ${req.method} ${path}.`);
    } catch (err) {
      if (!(err instanceof AppError)) deps.log.error({ err, path }, 'sidecar request failed');
      sendError(res, surfaceOf(path), err);
    }
  };
}
