import { z } from 'zod';
import { STAGES } from '@agentwall/shared/guardrails/index';
import { route, type RouteDef } from '../http/route.js';
import { create, diff, dryRun, getOne, history, listAll, remove, revert, update, version } from '../services/guardrails.js';
import { idParam, userOf, workspaceOf } from './util.js';

// Rules are checked by the engine's validateRules in the service, which names
// the rule and field of every problem; here they only have to be a list.
const Fields = {
  name: z.string().min(1).max(200),
  enabled: z.boolean(),
  is_default: z.boolean(),
  rules: z.array(z.unknown()),
};
const Create = z.object({ name: Fields.name, enabled: Fields.enabled.optional(), is_default: Fields.is_default.optional(), rules: Fields.rules.optional() }).strict();
const Update = z.object({ name: Fields.name.optional(), enabled: Fields.enabled.optional(), is_default: Fields.is_default.optional(), rules: Fields.rules.optional() }).strict();
const Evaluate = z.object({ text: z.string(), stage: z.enum(STAGES) }).strict();
const Revert = z.object({ to_version: z.number().int().min(1) }).strict();
const DiffQuery = z.object({ from: z.coerce.number().int().min(1), to: z.coerce.number().int().min(1) }).strict();

const BASE = '/api/guardrail';
const NOT_FOUND = 'Guardrail';
const guardrailId = (params: Record<string, string>) => idParam(params, 'id', NOT_FOUND);

export const guardrailRoutes: RouteDef[] = [
  route({
    method: 'post', path: BASE, tag: 'guardrails', summary: 'Create a guardrail (developer+); rules validated at save time; 409 on a live duplicate name. Appends version 1.',
    auth: 'session', role: 'developer', body: Create,
    handler: async ({ deps, workspace, principal, body }) => ({ status: 201, body: await create(deps, workspaceOf(workspace).id, body, userOf(principal)) }),
  }),
  route({
    method: 'get', path: BASE, tag: 'guardrails', summary: 'List the workspace\'s guardrails (deleted ones excluded).',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace }) => ({ body: { data: await listAll(deps, workspaceOf(workspace).id), has_more: false } }),
  }),
  route({
    method: 'get', path: `${BASE}/:id`, tag: 'guardrails', summary: 'Read a guardrail.',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace, params }) => ({ body: await getOne(deps, workspaceOf(workspace).id, guardrailId(params)) }),
  }),
  route({
    method: 'put', path: `${BASE}/:id`, tag: 'guardrails', summary: 'Change a guardrail (developer+); fields left out keep their value. Appends a version.',
    auth: 'session', role: 'developer', body: Update,
    handler: async ({ deps, workspace, principal, params, body }) => ({ body: await update(deps, workspaceOf(workspace).id, guardrailId(params), body, userOf(principal)) }),
  }),
  route({
    method: 'delete', path: `${BASE}/:id`, tag: 'guardrails', summary: 'Soft-delete a guardrail (developer+); its history stays readable and a revert restores it.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, principal, params }) => {
      await remove(deps, workspaceOf(workspace).id, guardrailId(params), userOf(principal));
      return { status: 204 };
    },
  }),
  route({
    method: 'post', path: `${BASE}/:id/evaluate`, tag: 'guardrails', summary: 'Dry run of the guardrail on a text; findings carry offsets, never the matched text. llm_judge and grounding rules are listed in notes, not evaluated.',
    auth: 'session', role: 'member', body: Evaluate,
    handler: async ({ deps, workspace, params, body }) => ({ body: await dryRun(deps, workspaceOf(workspace).id, guardrailId(params), body.text, body.stage) }),
  }),
  route({
    method: 'get', path: `${BASE}/:id/history`, tag: 'guardrails', summary: 'Version trail, newest first, up to the newest 50.',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace, params }) => ({ body: { data: await history(deps, workspaceOf(workspace).id, guardrailId(params)), has_more: false } }),
  }),
  // Declared before :version so "diff" is never read as a version number.
  route({
    method: 'get', path: `${BASE}/:id/history/diff`, tag: 'guardrails', summary: 'Both snapshots and the fields that differ between versions from and to.',
    auth: 'session', role: 'member', query: DiffQuery,
    handler: async ({ deps, workspace, params, query }) => ({ body: await diff(deps, workspaceOf(workspace).id, guardrailId(params), query.from, query.to) }),
  }),
  route({
    method: 'get', path: `${BASE}/:id/history/:version`, tag: 'guardrails', summary: 'One version with its snapshot.',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace, params }) => {
      const id = guardrailId(params);
      return { body: await version(deps, workspaceOf(workspace).id, id, idParam(params, 'version', NOT_FOUND)) };
    },
  }),
  route({
    method: 'post', path: `${BASE}/:id/revert`, tag: 'guardrails', summary: 'Restore version to_version as a new revert version (developer+); undeletes a deleted guardrail. Answers the live guardrail.',
    auth: 'session', role: 'developer', body: Revert,
    handler: async ({ deps, workspace, principal, params, body }) => ({ body: await revert(deps, workspaceOf(workspace).id, guardrailId(params), body.to_version, userOf(principal)) }),
  }),
];
