// Guardrails (CONTRACT §9): save-time rule validation with the shared
// engine, soft delete, the dry run, and the versioned history of the spec
// ("Guardrail version history"). Every change locks the guardrail row,
// writes the next version and bumps the workspace revision in one
// transaction, so history and bundle never disagree with the live record.
import { isDeepStrictEqual } from 'node:util';
import { AppError } from '@agentwall/shared/errors';
import { compileGuardrails, evaluate, GuardrailCompileError, validateRules, type CompiledGuardrails, type Stage } from '@agentwall/shared/guardrails/index';
import type { Deps } from '../deps.js';
import { withTransaction, type PoolClient } from '../db/pool.js';
import { bumpRevision } from '../db/queries/workspaces.js';
import {
  appendVersion, findGuardrail, findVersion, guardrailExists, insertGuardrail, listGuardrails, listVersions, lockGuardrail, nameTaken,
  writeGuardrail, type GuardrailContent, type GuardrailRow, type Operation, type VersionRow,
} from '../db/queries/guardrails.js';

export interface Author {
  id: number;
  email: string;
}

export interface GuardrailInput {
  name?: string | undefined;
  enabled?: boolean | undefined;
  is_default?: boolean | undefined;
  rules?: unknown;
}

const INT4_MAX = 2_147_483_647;
const FIELDS = ['name', 'enabled', 'is_default', 'rules'] as const;

/** The one not-found of this area: missing, deleted, other workspace, missing or pruned version alike. */
function notFound(): AppError {
  return new AppError('not_found', 'Guardrail not found.');
}

/** Version numbers come from the path, query or body; one outside the column's range cannot exist. */
function versionNumber(n: number): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > INT4_MAX) throw notFound();
  return n;
}

function checkName(name: string): void {
  if (name.trim() === '') throw new AppError('invalid_request', 'name: must not be blank', { metadata: { field: 'name' } });
}

/** Save-time validation by the engine: the message names the rule and field of every problem. */
function checkRules(rules: unknown): unknown[] {
  const result = validateRules(rules);
  if (result.ok) return result.rules;
  const first = result.errors[0] ?? 'rules: invalid';
  // "rules[2] (id "x").pattern: …" → field "rules[2].pattern"
  const m = /^(rules(?:\[\d+\])?)(?: \(id "(?:[^"\\]|\\.)*"\))?([^:\s]*):/.exec(first);
  const field = m ? `${m[1]}${m[2]}` : 'rules';
  throw new AppError('invalid_request', result.errors.join('; '), { metadata: { field, errors: result.errors } });
}

/** The API record (CONTRACT §9). */
export function present(row: GuardrailRow) {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    is_default: row.is_default,
    rules: row.rules,
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function entry(v: VersionRow) {
  return { version: v.version, operation: v.operation, author: { id: v.author_id, email: v.author_email }, timestamp: v.created_at };
}

function snapshotEntry(v: VersionRow) {
  return { ...entry(v), snapshot: contentOf(v) };
}

function contentOf(c: GuardrailContent): GuardrailContent {
  return { name: c.name, enabled: c.enabled, is_default: c.is_default, rules: c.rules };
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505'
    && (err as { constraint?: unknown }).constraint === 'guardrails_live_name_key';
}

function nameConflict(name: string): AppError {
  return new AppError('conflict', `A guardrail named "${name}" already exists in this workspace.`);
}

/**
 * Runs one change: in the transaction, `fn` returns the content to write
 * and the operation; this writes the row and the next history version,
 * prunes old versions and bumps the workspace revision. A concurrent
 * insert of the same live name surfaces as 409, never 500.
 */
async function change<T>(deps: Deps, fn: (db: PoolClient) => Promise<T>): Promise<T> {
  try {
    return await withTransaction(deps.pool, fn);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('conflict', 'A guardrail with this name already exists in this workspace.', { cause: err });
    throw err;
  }
}

async function record(db: PoolClient, workspaceId: number, current: GuardrailRow, content: GuardrailContent, operation: Exclude<Operation, 'create'>, author: Author): Promise<GuardrailRow> {
  const version = current.version + 1;
  const live = operation !== 'delete';
  if (live && (current.deleted_at !== null || content.name !== current.name) && (await nameTaken(db, workspaceId, content.name, current.id))) {
    throw nameConflict(content.name);
  }
  const row = await writeGuardrail(db, current.id, content, version, live);
  await appendVersion(db, { guardrail_id: current.id, version, operation, author, ...content });
  await bumpRevision(db, workspaceId);
  return row;
}

export async function listAll(deps: Deps, workspaceId: number) {
  return (await listGuardrails(deps.pool, workspaceId)).map(present);
}

export async function getOne(deps: Deps, workspaceId: number, id: number) {
  const row = await findGuardrail(deps.pool, workspaceId, id);
  if (!row) throw notFound();
  return present(row);
}

export async function create(deps: Deps, workspaceId: number, input: GuardrailInput, author: Author) {
  if (input.name === undefined) throw new AppError('invalid_request', 'name: is required', { metadata: { field: 'name' } });
  checkName(input.name);
  const content: GuardrailContent = { name: input.name, enabled: input.enabled ?? true, is_default: input.is_default ?? false, rules: checkRules(input.rules ?? []) };
  const row = await change(deps, async (db) => {
    if (await nameTaken(db, workspaceId, content.name, null)) throw nameConflict(content.name);
    const created = await insertGuardrail(db, workspaceId, content);
    await appendVersion(db, { guardrail_id: created.id, version: 1, operation: 'create', author, ...content });
    await bumpRevision(db, workspaceId);
    return created;
  });
  return present(row);
}

export async function update(deps: Deps, workspaceId: number, id: number, input: GuardrailInput, author: Author) {
  if (input.name !== undefined) checkName(input.name);
  const rules = input.rules === undefined ? undefined : checkRules(input.rules);
  const row = await change(deps, async (db) => {
    const current = await lockGuardrail(db, workspaceId, id);
    if (!current || current.deleted_at !== null) throw notFound();
    const content: GuardrailContent = {
      name: input.name ?? current.name,
      enabled: input.enabled ?? current.enabled,
      is_default: input.is_default ?? current.is_default,
      rules: rules ?? current.rules,
    };
    return record(db, workspaceId, current, content, 'update', author);
  });
  return present(row);
}

/** Soft delete: gone from reads and the bundle; history stays and a revert restores it. */
export async function remove(deps: Deps, workspaceId: number, id: number, author: Author): Promise<void> {
  await change(deps, async (db) => {
    const current = await lockGuardrail(db, workspaceId, id);
    if (!current || current.deleted_at !== null) throw notFound();
    await record(db, workspaceId, current, contentOf(current), 'delete', author);
  });
}

/**
 * Restores name, enabled, is_default and rules of version N as they were and
 * appends a `revert` row; a deleted guardrail comes back. The snapshot's
 * rules are validated again so a rule the engine no longer accepts is never
 * put live.
 */
export async function revert(deps: Deps, workspaceId: number, id: number, toVersion: number, author: Author) {
  const n = versionNumber(toVersion);
  const row = await change(deps, async (db) => {
    const current = await lockGuardrail(db, workspaceId, id);
    if (!current) throw notFound();
    const target = await findVersion(db, workspaceId, id, n);
    if (!target) throw notFound();
    const checked = validateRules(target.rules);
    if (!checked.ok) {
      throw new AppError('invalid_request', `to_version: the rules of version ${n} are no longer valid: ${checked.errors.join('; ')}`, { metadata: { field: 'to_version' } });
    }
    return record(db, workspaceId, current, contentOf(target), 'revert', author);
  });
  return present(row);
}

export async function history(deps: Deps, workspaceId: number, id: number) {
  if (!(await guardrailExists(deps.pool, workspaceId, id))) throw notFound();
  return (await listVersions(deps.pool, workspaceId, id)).map(entry);
}

async function versionRow(deps: Deps, workspaceId: number, id: number, version: number): Promise<VersionRow> {
  const v = await findVersion(deps.pool, workspaceId, id, versionNumber(version));
  if (!v) throw notFound();
  return v;
}

export async function version(deps: Deps, workspaceId: number, id: number, n: number) {
  return snapshotEntry(await versionRow(deps, workspaceId, id, n));
}

/** Both snapshots and the fields that differ between them, in a fixed order. */
export async function diff(deps: Deps, workspaceId: number, id: number, from: number, to: number) {
  const a = await versionRow(deps, workspaceId, id, from);
  const b = await versionRow(deps, workspaceId, id, to);
  const changes = FIELDS.filter((f) => !isDeepStrictEqual(a[f], b[f])).map((f) => ({ field: f, from: a[f], to: b[f] }));
  return { from: snapshotEntry(a), to: snapshotEntry(b), changes };
}

/**
 * The dry run: the same compile and evaluate as the sidecar. llm_judge and
 * grounding rules call a model, which a dry run does not; each is named in
 * `notes` as not evaluated. Findings carry offsets, never the matched text.
 */
export async function dryRun(deps: Deps, workspaceId: number, id: number, text: string, stage: Stage) {
  const row = await findGuardrail(deps.pool, workspaceId, id);
  if (!row) throw notFound();
  let compiled: CompiledGuardrails;
  try {
    compiled = compileGuardrails([{ id: String(row.id), name: row.name, rules: row.rules }]);
  } catch (err) {
    // Rules saved under an older engine that it no longer accepts: say so, as the sidecar would refuse them too.
    if (err instanceof GuardrailCompileError) throw new AppError('invalid_request', `rules: the stored rules no longer validate: ${err.errors.join('; ')}`, { metadata: { field: 'rules' }, cause: err });
    throw err;
  }
  const result = evaluate(compiled, text, stage);
  const notes = compiled.asyncRules[stage].map((r) => `rule ${r.rule_id} (${r.rule.type}) was not evaluated: the dry run does not call a model`);
  return {
    verdict: result.verdict,
    findings: result.findings.map((f) => ({ rule_id: f.rule_id, type: f.type, entity: f.entity, action: f.action, start: f.start, end: f.end })),
    masked_text: result.masked_text,
    notes,
  };
}
