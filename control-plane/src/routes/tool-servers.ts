import { z } from 'zod';
import { AUTH_MODES } from '@agentwall/shared/mcp';
import { AppError } from '@agentwall/shared/errors';
import { route, type RouteDef } from '../http/route.js';
import { createServer, getServer, listServers, pin, probe, removeServer, runtimeRegistry, updateServer } from '../services/tool-servers.js';
import { gatewayWorkspace, workspaceOf } from './util.js';

const AuthJson = z.union([z.string().max(16_384), z.record(z.string(), z.unknown()), z.null()]);
const Fields = {
  name: z.string().max(64),
  endpoint: z.string().max(2048),
  auth_mode: z.enum(AUTH_MODES),
  auth_json: AuthJson,
  enabled: z.boolean(),
};
const Create = z.object({ ...Fields, auth_mode: Fields.auth_mode.optional(), auth_json: AuthJson.optional(), enabled: z.boolean().optional() }).strict();
const Update = z.object(Object.fromEntries(Object.entries(Fields).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof Fields]: z.ZodOptional<(typeof Fields)[K]> }).strict();

/** `0` is the bundled server; registered ids are positive. */
function serverId(params: Record<string, string>): number {
  const raw = params['id'] ?? '';
  if (!/^(0|[1-9]\d{0,15})$/.test(raw)) throw new AppError('not_found', 'Tool server not found.');
  return Number(raw);
}


const BASE = '/api/workspace/firewall/mcp_servers';

export const toolServerRoutes: RouteDef[] = [
  route({
    method: 'post', path: BASE, tag: 'tool-servers', summary: 'Register a remote MCP server (developer+); 409 on a duplicate name.',
    auth: 'session', role: 'developer', body: Create,
    handler: async ({ deps, workspace, body }) => ({ status: 201, body: await createServer(deps, workspaceOf(workspace).id, body) }),
  }),
  route({
    method: 'get', path: BASE, tag: 'tool-servers', summary: 'List tool servers, the bundled one first; credentials masked.',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace }) => ({ body: { data: await listServers(deps, workspaceOf(workspace).id), has_more: false } }),
  }),
  route({
    method: 'get', path: `${BASE}/:id`, tag: 'tool-servers', summary: 'Read a tool server; credential masked.',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace, params }) => {
      const id = serverId(params);
      if (id === 0) return { body: (await listServers(deps, workspaceOf(workspace).id))[0] };
      return { body: await getServer(deps, workspaceOf(workspace).id, id) };
    },
  }),
  route({
    method: 'put', path: `${BASE}/:id`, tag: 'tool-servers', summary: 'Update a tool server; echoing the masked credential keeps it, a new value rotates it.',
    auth: 'session', role: 'developer', body: Update,
    handler: async ({ deps, workspace, params, body }) => {
      const id = serverId(params);
      if (id === 0) throw new AppError('invalid_request', 'The bundled server "builtin" cannot be changed.');
      return { body: await updateServer(deps, workspaceOf(workspace).id, id, body) };
    },
  }),
  route({
    method: 'delete', path: `${BASE}/:id`, tag: 'tool-servers', summary: 'Delete a tool server registration.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, params }) => {
      const id = serverId(params);
      if (id === 0) throw new AppError('invalid_request', 'The bundled server "builtin" cannot be deleted.');
      await removeServer(deps, workspaceOf(workspace).id, id);
      return { status: 204 };
    },
  }),
  route({
    method: 'post', path: `${BASE}/:id/probe`, tag: 'tool-servers', summary: 'Connect with the decrypted credential, list tools, record ok, degraded or down.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, params }) => ({ body: await probe(deps, workspaceOf(workspace).id, serverId(params)) }),
  }),
  route({
    method: 'post', path: `${BASE}/:id/pin`, tag: 'tool-servers', summary: 'Accept the server\'s current tool definitions (tool pinning).',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, params }) => ({ body: await pin(deps, workspaceOf(workspace).id, serverId(params)) }),
  }),
  route({
    method: 'get', path: '/api/v1/firewall/mcp_servers', tag: 'sidecar', summary: 'Runtime registry: enabled servers of the gateway key\'s workspace, without credentials.',
    auth: 'gateway',
    handler: async ({ deps, principal }) => ({ body: { data: await runtimeRegistry(deps, gatewayWorkspace(principal)), has_more: false } }),
  }),
];
