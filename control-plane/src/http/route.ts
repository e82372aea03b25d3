// One declaration per route: method, path, credential, role and the zod
// schemas it validates with. The router and the OpenAPI document are both
// built from these declarations, so the two cannot drift apart.
import type Koa from 'koa';
import type Router from '@koa/router';
import type { z } from 'zod';
import { AppError } from '@agentwall/shared/errors';
import { readRawBody, parseJson } from './body.js';
import { validate } from './validate.js';
import type { Deps } from '../deps.js';
import { authenticate, type Principal, type Role, resolveWorkspace, type WorkspaceAccess } from '../services/auth.js';

export type AuthKind = 'none' | 'session' | 'gateway' | 'signature';

export interface RouteDef<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  tag: string;
  auth: AuthKind;
  /** Workspace-scoped routes: the minimum role in the X-Workspace-Id workspace. */
  role?: Role;
  instanceAdmin?: boolean;
  body?: B;
  query?: Q;
  /** Response description for OpenAPI (schema optional). */
  response?: { status: number; schema?: z.ZodType; description: string; contentType?: string };
  handler: (c: RouteContext<z.output<B>, z.output<Q>>) => Promise<Reply | void>;
}

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext<B, Q> {
  ctx: Koa.Context;
  deps: Deps;
  body: B;
  query: Q;
  params: Record<string, string>;
  rawBody: Buffer | undefined;
  principal: Principal;
  workspace: WorkspaceAccess | undefined;
}

// Generic helper so each route file gets inference on body/query.
export function route<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined>(def: RouteDef<B, Q>): RouteDef {
  return def as unknown as RouteDef;
}

const CONSOLE_BODY_LIMIT = 1024 * 1024; // CONTRACT §3: console body 1 MiB

export function mount(router: Router, deps: Deps, defs: RouteDef[]): void {
  for (const def of defs) {
    router[def.method](def.path, async (ctx) => {
      const principal = await authenticate(deps, ctx.get('authorization'), def.auth);
      let workspace: WorkspaceAccess | undefined;
      if (def.role) workspace = await resolveWorkspace(deps, principal, ctx.get('x-workspace-id'), def.role);
      if (def.instanceAdmin && !(principal.kind === 'user' && principal.user.is_admin)) {
        throw new AppError('forbidden', 'This action needs an instance administrator.');
      }
      let rawBody: Buffer | undefined;
      let body: unknown;
      if (def.body || def.auth === 'signature') {
        rawBody = await readRawBody(ctx.req, CONSOLE_BODY_LIMIT);
        body = parseJson(rawBody);
        if (def.body) body = validate(def.body, body ?? {}, 'body');
      }
      const query = def.query ? validate(def.query, { ...ctx.query }, 'query') : undefined;
      const reply = await def.handler({ ctx, deps, body, query, params: ctx.params as Record<string, string>, rawBody, principal, workspace });
      if (reply) {
        ctx.status = reply.status ?? 200;
        for (const [k, v] of Object.entries(reply.headers ?? {})) ctx.set(k, v);
        if (reply.body !== undefined) ctx.body = reply.body;
      }
    });
  }
}
