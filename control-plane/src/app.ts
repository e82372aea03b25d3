// Wires the control plane: error envelope, metrics, routes. Never listens.
import Koa from 'koa';
import Router from '@koa/router';
import { AppError, toApiError } from '@agentwall/shared/errors';
import { safePath } from '@agentwall/shared/log';
import type { Deps } from './deps.js';
import { mount } from './http/route.js';
import { buildOpenApi } from './http/openapi.js';
import { ROUTES } from './routes/index.js';

export function createApp(deps: Deps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  const router = new Router();
  const openapi = buildOpenApi(ROUTES, {
    '/healthz': { get: { summary: 'Liveness', responses: { 200: { description: 'alive' } } } },
    '/readyz': { get: { summary: 'Readiness: database reachable', responses: { 200: { description: 'ready' }, 503: { description: 'not ready' } } } },
    '/metrics': { get: { summary: 'Prometheus metrics', responses: { 200: { description: 'text exposition' } } } },
  });

  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        const allowed = allowedMethods(router, ctx.path);
        if (allowed.length > 0) {
          throw new AppError('method_not_allowed', `${ctx.method} is not allowed here.`, { headers: { allow: allowed.join(', ') } });
        }
        throw new AppError('not_found', `No route ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      const shaped = toApiError(err);
      if (shaped.status >= 500) deps.log.error({ err, path: safePath(ctx.url), method: ctx.method }, 'request failed');
      ctx.status = shaped.status;
      ctx.set(shaped.headers);
      ctx.body = shaped.body;
    } finally {
      const routeName = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      deps.metrics.requests.inc({ method: ctx.method, route: String(routeName), status: String(ctx.status) });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.duration.observe({ method: ctx.method, route: String(routeName) }, seconds);
      // Path without the query string: never a credential in an access line.
      deps.log.debug({ method: ctx.method, path: safePath(ctx.url), status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
    }
  });

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await deps.pool.query('SELECT 1');
      ctx.body = { status: 'ready' };
    } catch {
      throw new AppError('service_unavailable', 'Database unreachable.');
    }
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
  router.get('/api/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  mount(router, deps, ROUTES);
  app.use(router.routes());
  return app;
}

function allowedMethods(router: Router, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of router.stack) {
    if (layer.methods.length > 0 && layer.match(path)) for (const m of layer.methods) if (m !== 'HEAD') methods.add(m);
  }
  return [...methods];
}
