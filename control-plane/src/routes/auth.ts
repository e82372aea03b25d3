import { z } from 'zod';
import { AppError } from '@agentwall/shared/errors';
import { route, type RouteDef } from '../http/route.js';
import { login, createAccessToken } from '../services/identity.js';
import { listAccessTokens, revokeAccessToken } from '../db/queries/tokens.js';
import { userOf } from './util.js';

const Login = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) }).strict();
const NewToken = z.object({ name: z.string().min(1).max(200), expires_in_days: z.number().int().min(1).max(3650).optional() }).strict();

export const authRoutes: RouteDef[] = [
  route({
    method: 'post', path: '/api/auth/login', tag: 'auth', summary: 'Log in with email and password; returns a 12 h session token.',
    auth: 'none', body: Login,
    handler: async ({ deps, body }) => ({ body: await login(deps, body.email, body.password) }),
  }),
  route({
    method: 'get', path: '/api/auth/me', tag: 'auth', summary: 'The caller, with workspaces and roles.',
    auth: 'session',
    handler: async ({ principal }) => ({ body: userOf(principal) }),
  }),
  route({
    method: 'post', path: '/api/auth/tokens', tag: 'auth', summary: 'Create an access token (awt-…), shown once.',
    auth: 'session', body: NewToken,
    handler: async ({ deps, body, principal }) => {
      const t = await createAccessToken(deps, userOf(principal).id, body.name, body.expires_in_days);
      return { status: 201, body: t };
    },
  }),
  route({
    method: 'get', path: '/api/auth/tokens', tag: 'auth', summary: 'List my access tokens (prefix only).',
    auth: 'session',
    handler: async ({ deps, principal }) => ({ body: { data: await listAccessTokens(deps.pool, userOf(principal).id), has_more: false } }),
  }),
  route({
    method: 'delete', path: '/api/auth/tokens/:id', tag: 'auth', summary: 'Revoke one of my access tokens.',
    auth: 'session',
    handler: async ({ deps, principal, params }) => {
      const id = Number(params['id']);
      if (!Number.isSafeInteger(id) || !(await revokeAccessToken(deps.pool, userOf(principal).id, id))) throw new AppError('not_found', 'Access token not found.');
      return { status: 204 };
    },
  }),
];
