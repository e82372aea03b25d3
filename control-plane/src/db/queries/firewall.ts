import type { Queryable } from '../pool.js';
import type { EgressSettings, FirewallRule, Skill, Surface } from '@agentwall/shared/schemas/firewall';

export interface PolicyRow {
  id: number;
  workspace_id: number;
  name: string;
  enabled: boolean;
  priority: number;
  surfaces: Surface[];
  rules: FirewallRule[];
  created_at: Date;
  updated_at: Date;
}

export async function nextRuleIds(db: Queryable, n: number): Promise<number[]> {
  if (n === 0) return [];
  const r = await db.query<{ id: number }>('SELECT nextval(\'firewall_rule_id_seq\')::bigint AS id FROM generate_series(1, $1)', [n]);
  return r.rows.map((x) => x.id);
}

export async function listPolicies(db: Queryable, workspaceId: number): Promise<PolicyRow[]> {
  const r = await db.query<PolicyRow>('SELECT * FROM firewall_policies WHERE workspace_id = $1 ORDER BY priority, id', [workspaceId]);
  return r.rows;
}

export async function findPolicy(db: Queryable, workspaceId: number, id: number, lock = false): Promise<PolicyRow | undefined> {
  const r = await db.query<PolicyRow>(`SELECT * FROM firewall_policies WHERE workspace_id = $1 AND id = $2 ${lock ? 'FOR UPDATE' : ''}`, [workspaceId, id]);
  return r.rows[0];
}

export async function insertPolicy(db: Queryable, workspaceId: number, p: { name: string; enabled: boolean; priority: number; surfaces: Surface[]; rules: FirewallRule[] }): Promise<PolicyRow> {
  const r = await db.query<PolicyRow>(
    'INSERT INTO firewall_policies (workspace_id, name, enabled, priority, surfaces, rules) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
    [workspaceId, p.name, p.enabled, p.priority, p.surfaces, JSON.stringify(p.rules)],
  );
  return r.rows[0]!;
}

export async function updatePolicy(db: Queryable, id: number, p: { name: string; enabled: boolean; priority: number; surfaces: Surface[]; rules: FirewallRule[] }): Promise<PolicyRow> {
  const r = await db.query<PolicyRow>(
    'UPDATE firewall_policies SET name = $2, enabled = $3, priority = $4, surfaces = $5, rules = $6, updated_at = now() WHERE id = $1 RETURNING *',
    [id, p.name, p.enabled, p.priority, p.surfaces, JSON.stringify(p.rules)],
  );
  return r.rows[0]!;
}

export async function deletePolicy(db: Queryable, workspaceId: number, id: number): Promise<PolicyRow | undefined> {
  const r = await db.query<PolicyRow>('DELETE FROM firewall_policies WHERE workspace_id = $1 AND id = $2 RETURNING *', [workspaceId, id]);
  return r.rows[0];
}

export async function getEgress(db: Queryable, workspaceId: number): Promise<EgressSettings | null> {
  const r = await db.query<EgressSettings>('SELECT mode, hosts, cidrs FROM firewall_egress WHERE workspace_id = $1', [workspaceId]);
  return r.rows[0] ?? null;
}

export async function putEgress(db: Queryable, workspaceId: number, e: EgressSettings): Promise<void> {
  await db.query(
    `INSERT INTO firewall_egress (workspace_id, mode, hosts, cidrs) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id) DO UPDATE SET mode = $2, hosts = $3, cidrs = $4, updated_at = now()`,
    [workspaceId, e.mode, e.hosts, e.cidrs],
  );
}

export async function listSkills(db: Queryable, workspaceId: number): Promise<Skill[]> {
  const r = await db.query<Skill>('SELECT name, mode, tools FROM firewall_skills WHERE workspace_id = $1 ORDER BY name', [workspaceId]);
  return r.rows;
}

export async function getSkill(db: Queryable, workspaceId: number, name: string): Promise<Skill | undefined> {
  const r = await db.query<Skill>('SELECT name, mode, tools FROM firewall_skills WHERE workspace_id = $1 AND name = $2', [workspaceId, name]);
  return r.rows[0];
}

export async function putSkill(db: Queryable, workspaceId: number, s: Skill): Promise<void> {
  await db.query(
    `INSERT INTO firewall_skills (workspace_id, name, mode, tools) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, name) DO UPDATE SET mode = $3, tools = $4, updated_at = now()`,
    [workspaceId, s.name, s.mode, s.tools],
  );
}

export async function deleteSkill(db: Queryable, workspaceId: number, name: string): Promise<boolean> {
  const r = await db.query('DELETE FROM firewall_skills WHERE workspace_id = $1 AND name = $2', [workspaceId, name]);
  return (r.rowCount ?? 0) > 0;
}

export async function logChange(db: Queryable, c: { workspace_id: number; actor_id: number | null; kind: string; action: string; target: string; before: unknown; after: unknown }): Promise<void> {
  await db.query(
    'INSERT INTO firewall_changes (workspace_id, actor_id, kind, action, target, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [c.workspace_id, c.actor_id, c.kind, c.action, c.target, c.before === undefined ? null : JSON.stringify(c.before), c.after === undefined ? null : JSON.stringify(c.after)],
  );
}

export async function listChanges(db: Queryable, workspaceId: number, limit: number) {
  const r = await db.query(
    `SELECT c.id, c.kind, c.action, c.target, c.before, c.after, c.created_at, CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'email', u.email) END AS actor
     FROM firewall_changes c LEFT JOIN users u ON u.id = c.actor_id WHERE c.workspace_id = $1 ORDER BY c.id DESC LIMIT $2`,
    [workspaceId, limit + 1],
  );
  return { data: r.rows.slice(0, limit), has_more: r.rows.length > limit };
}
