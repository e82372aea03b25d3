import { z } from 'zod';
import { AppError } from '@agentwall/shared/errors';
import { route, type RouteDef } from '../http/route.js';
import { withTransaction } from '../db/pool.js';
import { createGatewayKey, createRelayKey } from '../services/identity.js';
import { findRelayKey, listGatewayKeys, listRelayKeys, revokeGatewayKey, revokeRelayKey, unknownGuardrailIds, updateRelayKey, type RelayKeyRow } from '../db/queries/keys.js';
import type { Queryable } from '../db/pool.js';
import { bumpRevision } from '../db/queries/workspaces.js';
import { idParam, userOf, workspaceOf } from './util.js';

const RelayKeyFields = {
  guardrail_ids: z.array(z.number().int().positive()).max(100),
  quota_limit: z.number().int().min(0).nullable(),
  rate_limit_rpm: z.number().int().min(1).max(1_000_000).nullable(),
  models: z.array(z.string().min(1).max(200)).max(500).nullable(),
};
const NewRelayKey = z.object({ name: z.string().trim().min(1).max(200), ...partial(RelayKeyFields) }).strict();
const EditRelayKey = z.object({ name: z.string().trim().min(1).max(200).optional(), ...partial(RelayKeyFields) }).strict();
const NewGatewayKey = z.object({ name: z.string().trim().min(1).max(200) }).strict();

function partial<T extends Record<string, z.ZodType>>(shape: T): { [K in keyof T]: z.ZodOptional<T[K]> } {
  return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };
}

/** Attached guardrails must be live guardrails of the same workspace. */
async function checkGuardrails(db: Queryable, workspaceId: number, ids: number[] | undefined): Promise<void> {
  const missing = await unknownGuardrailIds(db, workspaceId, ids ?? []);
  if (missing.length > 0) throw new AppError('invalid_request', `guardrail_ids: no guardrail ${missing[0]} in this workspace`, { metadata: { field: 'guardrail_ids' } });
}

/** The stored hash never leaves the control plane except inside the signed bundle. */
function present(k: RelayKeyRow) {
  const { key_hash: _hash, revoked_at: _revoked, ...rest } = k;
  return rest;
}

export const keyRoutes: RouteDef[] = [
  route({
    method: 'post', path: '/api/workspace/relay_keys', tag: 'keys', summary: 'Create a relay key (sk-svc-…), shown once.',
    auth: 'session', role: 'developer', body: NewRelayKey,
    handler: async ({ deps, workspace, principal, body }) => {
      const ws = workspaceOf(workspace);
      await checkGuardrails(deps.pool, ws.id, body.guardrail_ids);
      const { row, key } = await withTransaction(deps.pool, (db) =>
        createRelayKey(db, ws.id, userOf(principal).id, {
          name: body.name,
          guardrail_ids: body.guardrail_ids ?? [],
          quota_limit: body.quota_limit ?? null,
          rate_limit_rpm: body.rate_limit_rpm ?? null,
          models: body.models ?? null,
        }),
      );
      return { status: 201, body: { ...present(row), key } };
    },
  }),
  route({
    method: 'get', path: '/api/workspace/relay_keys', tag: 'keys', summary: 'List relay keys (prefix only).',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace }) => ({ body: { data: (await listRelayKeys(deps.pool, workspaceOf(workspace).id)).map(present), has_more: false } }),
  }),
  route({
    method: 'get', path: '/api/workspace/relay_keys/:id', tag: 'keys', summary: 'Read a relay key, with quota_used.',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace, params }) => {
      const row = await findRelayKey(deps.pool, workspaceOf(workspace).id, idParam(params, 'id', 'Relay key'));
      if (!row) throw new AppError('not_found', 'Relay key not found.');
      return { body: present(row) };
    },
  }),
  route({
    method: 'put', path: '/api/workspace/relay_keys/:id', tag: 'keys', summary: 'Change a relay key\'s name, guardrails, quota, rate limit or models.',
    auth: 'session', role: 'developer', body: EditRelayKey,
    handler: async ({ deps, workspace, params, body }) => {
      const ws = workspaceOf(workspace);
      const id = idParam(params, 'id', 'Relay key');
      const row = await withTransaction(deps.pool, async (db) => {
        await checkGuardrails(db, ws.id, body.guardrail_ids);
        const updated = await updateRelayKey(db, ws.id, id, body);
        if (updated) await bumpRevision(db, ws.id);
        return updated;
      });
      if (!row) throw new AppError('not_found', 'Relay key not found.');
      return { body: present(row) };
    },
  }),
  route({
    method: 'delete', path: '/api/workspace/relay_keys/:id', tag: 'keys', summary: 'Revoke a relay key.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, params }) => {
      const ws = workspaceOf(workspace);
      const id = idParam(params, 'id', 'Relay key');
      const ok = await withTransaction(deps.pool, async (db) => {
        const revoked = await revokeRelayKey(db, ws.id, id);
        if (revoked) await bumpRevision(db, ws.id);
        return revoked;
      });
      if (!ok) throw new AppError('not_found', 'Relay key not found.');
      return { status: 204 };
    },
  }),
  route({
    method: 'post', path: '/api/workspace/gateway_keys', tag: 'keys', summary: 'Create a gateway key (gk-svc-…) for sidecars, shown once.',
    auth: 'session', role: 'developer', body: NewGatewayKey,
    handler: async ({ deps, workspace, principal, body }) => {
      const { row, key } = await createGatewayKey(deps.pool, workspaceOf(workspace).id, userOf(principal).id, body.name);
      const { revoked_at: _r, ...rest } = row;
      return { status: 201, body: { ...rest, key } };
    },
  }),
  route({
    method: 'get', path: '/api/workspace/gateway_keys', tag: 'keys', summary: 'List gateway keys (prefix only).',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace }) => ({
      body: { data: (await listGatewayKeys(deps.pool, workspaceOf(workspace).id)).map(({ revoked_at: _r, ...rest }) => rest), has_more: false },
    }),
  }),
  route({
    method: 'delete', path: '/api/workspace/gateway_keys/:id', tag: 'keys', summary: 'Revoke a gateway key.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, params }) => {
      if (!(await revokeGatewayKey(deps.pool, workspaceOf(workspace).id, idParam(params, 'id', 'Gateway key')))) throw new AppError('not_found', 'Gateway key not found.');
      return { status: 204 };
    },
  }),
];
