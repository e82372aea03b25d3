// Firewall policy, egress and skills (CONTRACT §6). Every change is logged in
// the firewall change log and bumps the workspace revision, in one
// transaction; the sidecar compiles what the bundle carries.
import { AppError } from '@agentwall/shared/errors';
import {
  validateEgressInput, validatePolicyInput, validateSkillInput, type FirewallPolicyInput, type FirewallRule, type Validated,
} from '@agentwall/shared/schemas/firewall';
import type { Deps } from '../deps.js';
import { withTransaction, type Queryable } from '../db/pool.js';
import { bumpRevision } from '../db/queries/workspaces.js';
import {
  deletePolicy, deleteSkill, findPolicy, getEgress, getSkill, insertPolicy, listPolicies, listSkills, logChange, nextRuleIds, putEgress, putSkill, updatePolicy,
} from '../db/queries/firewall.js';

function valid<T>(v: Validated<T>): T {
  if (v.ok) return v.value;
  const e = v.errors[0]!;
  throw new AppError('invalid_request', `${e.field}: ${e.message}`, { metadata: { field: e.field, errors: v.errors.slice(0, 20) } });
}

/** Keeps ids of rules that already belong to this policy; assigns new ones otherwise. */
async function assignRuleIds(db: Queryable, input: FirewallPolicyInput, existing: FirewallRule[]): Promise<FirewallRule[]> {
  const known = new Set(existing.map((r) => r.id));
  const seen = new Set<number>();
  const needs = input.rules.filter((r) => r.id === undefined || !known.has(r.id) || seen.has(r.id) || !seen.add(r.id)).length;
  const fresh = await nextRuleIds(db, needs);
  seen.clear();
  return input.rules.map((r) => {
    const keep = r.id !== undefined && known.has(r.id) && !seen.has(r.id);
    const id = keep ? r.id! : fresh.shift()!;
    seen.add(id);
    return { ...r, id };
  });
}

export const DEFAULT_POLICY: FirewallPolicyInput = {
  name: 'default: destructive commands and SSRF',
  enabled: true,
  priority: 1000,
  surfaces: ['mcp', 'response', 'inbound', 'egress'],
  rules: [
    { name: 'deny destructive commands', tool: '**', detector: 'destructive_command', verdict: 'deny' },
    { name: 'deny SSRF-shaped URLs', tool: '**', detector: 'ssrf', verdict: 'deny' },
  ],
};

/** A new workspace starts with the default policy. */
export async function initWorkspaceFirewall(db: Queryable, workspaceId: number): Promise<void> {
  const rules = await assignRuleIds(db, DEFAULT_POLICY, []);
  await insertPolicy(db, workspaceId, { name: DEFAULT_POLICY.name, enabled: true, priority: DEFAULT_POLICY.priority, surfaces: DEFAULT_POLICY.surfaces, rules });
}

export async function createPolicy(deps: Deps, workspaceId: number, actorId: number, input: unknown) {
  const p = valid(validatePolicyInput(input));
  return withTransaction(deps.pool, async (db) => {
    const row = await insertPolicy(db, workspaceId, { ...p, rules: await assignRuleIds(db, p, []) });
    await logChange(db, { workspace_id: workspaceId, actor_id: actorId, kind: 'policy', action: 'create', target: String(row.id), before: null, after: row });
    await bumpRevision(db, workspaceId);
    return row;
  });
}

export async function updatePolicyById(deps: Deps, workspaceId: number, actorId: number, id: number, input: unknown) {
  const p = valid(validatePolicyInput(input));
  return withTransaction(deps.pool, async (db) => {
    const before = await findPolicy(db, workspaceId, id, true);
    if (!before) throw new AppError('not_found', 'Policy not found.');
    const row = await updatePolicy(db, id, { ...p, rules: await assignRuleIds(db, p, before.rules) });
    await logChange(db, { workspace_id: workspaceId, actor_id: actorId, kind: 'policy', action: 'update', target: String(id), before, after: row });
    await bumpRevision(db, workspaceId);
    return row;
  });
}

export async function deletePolicyById(deps: Deps, workspaceId: number, actorId: number, id: number): Promise<void> {
  await withTransaction(deps.pool, async (db) => {
    const before = await deletePolicy(db, workspaceId, id);
    if (!before) throw new AppError('not_found', 'Policy not found.');
    await logChange(db, { workspace_id: workspaceId, actor_id: actorId, kind: 'policy', action: 'delete', target: String(id), before, after: null });
    await bumpRevision(db, workspaceId);
  });
}

export async function getPolicy(deps: Deps, workspaceId: number, id: number) {
  const row = await findPolicy(deps.pool, workspaceId, id);
  if (!row) throw new AppError('not_found', 'Policy not found.');
  return row;
}

export const listPoliciesOf = (deps: Deps, workspaceId: number) => listPolicies(deps.pool, workspaceId);

export async function readEgress(deps: Deps, workspaceId: number) {
  return (await getEgress(deps.pool, workspaceId)) ?? { mode: 'denylist' as const, hosts: [], cidrs: [] };
}

export async function writeEgress(deps: Deps, workspaceId: number, actorId: number, input: unknown) {
  const e = valid(validateEgressInput(input));
  return withTransaction(deps.pool, async (db) => {
    const before = await getEgress(db, workspaceId);
    await putEgress(db, workspaceId, e);
    await logChange(db, { workspace_id: workspaceId, actor_id: actorId, kind: 'egress', action: before ? 'update' : 'create', target: 'egress', before, after: e });
    await bumpRevision(db, workspaceId);
    return e;
  });
}

export const listSkillsOf = (deps: Deps, workspaceId: number) => listSkills(deps.pool, workspaceId);

export async function readSkill(deps: Deps, workspaceId: number, name: string) {
  const s = await getSkill(deps.pool, workspaceId, name);
  if (!s) throw new AppError('not_found', 'Skill not found.');
  return s;
}

export async function writeSkill(deps: Deps, workspaceId: number, actorId: number, name: string, input: unknown) {
  const body = typeof input === 'object' && input !== null && !Array.isArray(input) ? { ...input, name } : input;
  const s = valid(validateSkillInput(body));
  return withTransaction(deps.pool, async (db) => {
    const before = await getSkill(db, workspaceId, name);
    await putSkill(db, workspaceId, s);
    await logChange(db, { workspace_id: workspaceId, actor_id: actorId, kind: 'skill', action: before ? 'update' : 'create', target: name, before: before ?? null, after: s });
    await bumpRevision(db, workspaceId);
    return s;
  });
}

export async function removeSkill(deps: Deps, workspaceId: number, actorId: number, name: string): Promise<void> {
  await withTransaction(deps.pool, async (db) => {
    const before = await getSkill(db, workspaceId, name);
    if (!before || !(await deleteSkill(db, workspaceId, name))) throw new AppError('not_found', 'Skill not found.');
    await logChange(db, { workspace_id: workspaceId, actor_id: actorId, kind: 'skill', action: 'delete', target: name, before, after: null });
    await bumpRevision(db, workspaceId);
  });
}

/** The bundle section: exactly the shape the sidecar's engine compiles. */
export async function firewallSection(db: Queryable, workspaceId: number) {
  const policies = (await listPolicies(db, workspaceId)).map((p) => ({ id: p.id, name: p.name, enabled: p.enabled, priority: p.priority, surfaces: p.surfaces, rules: p.rules }));
  return { policies, egress: await getEgress(db, workspaceId), skills: await listSkills(db, workspaceId) };
}
