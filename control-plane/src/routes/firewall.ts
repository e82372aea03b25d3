import { z } from 'zod';
import { AppError } from '@agentwall/shared/errors';
import { FirewallPolicyInputSchema, EgressSettingsSchema, SkillSchema } from '@agentwall/shared/schemas/firewall';
import { route, type RouteDef } from '../http/route.js';
import {
  createPolicy, deletePolicyById, getPolicy, listPoliciesOf, listSkillsOf, readEgress, readSkill, removeSkill, updatePolicyById, writeEgress, writeSkill,
} from '../services/firewall.js';
import { listChanges } from '../db/queries/firewall.js';
import { idParam, userOf, workspaceOf } from './util.js';

// The service validates with the shared schemas (errors name rules[2].args_match[0].regex);
// the route accepts any JSON object so that those precise messages are the ones users see.
const AnyObject = z.record(z.string(), z.unknown());
const Limit = z.object({ limit: z.coerce.number().int().min(1).max(500).optional() });
const P = '/api/workspace/firewall';

function skillName(params: Record<string, string>): string {
  const n = params['name'] ?? '';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(n)) throw new AppError('not_found', 'Skill not found.');
  return n;
}

export const firewallRoutes: RouteDef[] = [
  route({
    method: 'post', path: `${P}/policies`, tag: 'firewall', summary: 'Create a firewall policy; rule ids are assigned by the server.',
    auth: 'session', role: 'developer', body: AnyObject,
    response: { status: 201, description: 'The policy', schema: FirewallPolicyInputSchema },
    handler: async ({ deps, workspace, principal, body }) => ({ status: 201, body: await createPolicy(deps, workspaceOf(workspace).id, userOf(principal).id, body) }),
  }),
  route({
    method: 'get', path: `${P}/policies`, tag: 'firewall', summary: 'List policies by priority.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace }) => ({ body: { data: await listPoliciesOf(deps, workspaceOf(workspace).id), has_more: false } }),
  }),
  route({
    method: 'get', path: `${P}/policies/:id`, tag: 'firewall', summary: 'Read a policy.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, params }) => ({ body: await getPolicy(deps, workspaceOf(workspace).id, idParam(params, 'id', 'Policy')) }),
  }),
  route({
    method: 'put', path: `${P}/policies/:id`, tag: 'firewall', summary: 'Replace a policy; rules keep their ids when sent with them.',
    auth: 'session', role: 'developer', body: AnyObject,
    handler: async ({ deps, workspace, principal, params, body }) => ({ body: await updatePolicyById(deps, workspaceOf(workspace).id, userOf(principal).id, idParam(params, 'id', 'Policy'), body) }),
  }),
  route({
    method: 'delete', path: `${P}/policies/:id`, tag: 'firewall', summary: 'Delete a policy.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, principal, params }) => {
      await deletePolicyById(deps, workspaceOf(workspace).id, userOf(principal).id, idParam(params, 'id', 'Policy'));
      return { status: 204 };
    },
  }),
  route({
    method: 'get', path: `${P}/egress`, tag: 'firewall', summary: 'Egress allow/deny lists.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace }) => ({ body: await readEgress(deps, workspaceOf(workspace).id) }),
  }),
  route({
    method: 'put', path: `${P}/egress`, tag: 'firewall', summary: 'Replace the egress lists {mode, hosts, cidrs}.',
    auth: 'session', role: 'developer', body: AnyObject,
    response: { status: 200, description: 'The egress settings', schema: EgressSettingsSchema },
    handler: async ({ deps, workspace, principal, body }) => ({ body: await writeEgress(deps, workspaceOf(workspace).id, userOf(principal).id, body) }),
  }),
  route({
    method: 'get', path: `${P}/skills`, tag: 'firewall', summary: 'List skills.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace }) => ({ body: { data: await listSkillsOf(deps, workspaceOf(workspace).id), has_more: false } }),
  }),
  route({
    method: 'get', path: `${P}/skills/:name`, tag: 'firewall', summary: 'Read a skill.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, params }) => ({ body: await readSkill(deps, workspaceOf(workspace).id, skillName(params)) }),
  }),
  route({
    method: 'put', path: `${P}/skills/:name`, tag: 'firewall', summary: 'Create or replace a skill {mode: allow|audit|block, tools}.',
    auth: 'session', role: 'developer', body: AnyObject,
    response: { status: 200, description: 'The skill', schema: SkillSchema },
    handler: async ({ deps, workspace, principal, params, body }) => ({ body: await writeSkill(deps, workspaceOf(workspace).id, userOf(principal).id, skillName(params), body) }),
  }),
  route({
    method: 'delete', path: `${P}/skills/:name`, tag: 'firewall', summary: 'Delete a skill.',
    auth: 'session', role: 'developer',
    handler: async ({ deps, workspace, principal, params }) => {
      await removeSkill(deps, workspaceOf(workspace).id, userOf(principal).id, skillName(params));
      return { status: 204 };
    },
  }),
  route({
    method: 'get', path: `${P}/changes`, tag: 'firewall', summary: 'Firewall change log: policies, egress and skills, newest first.',
    auth: 'session', role: 'developer', query: Limit,
    handler: async ({ deps, workspace, query }) => ({ body: await listChanges(deps.pool, workspaceOf(workspace).id, query.limit ?? 100) }),
  }),
];
