// Tool-server registrations (CONTRACT §5): validation per auth_mode, the
// credential encrypted at rest and masked on every read, rotation on update,
// probes and pins. Every change bumps the workspace revision in its
// transaction so sidecars see it.
import { AppError } from '@agentwall/shared/errors';
import { decryptSecret, encryptSecret, maskSecret } from '@agentwall/shared/crypto';
import { AUTH_FIELDS, authHeaders, toolDefinitionHash, BUILTIN_SERVER, type AuthMode, type ToolDefinition } from '@agentwall/shared/mcp';
import type { Deps } from '../deps.js';
import { withTransaction } from '../db/pool.js';
import { bumpRevision } from '../db/queries/workspaces.js';
import {
  deleteToolServer, findToolServer, insertToolServer, listToolServers, nameTaken, recordProbe, setPins, updateToolServer, type ToolServerRow,
} from '../db/queries/tool-servers.js';
import { probeServer, type ProbeResult } from './probe.js';
import { BUILTIN_TOOLS } from '@agentwall/shared/builtin-tools';

export interface ToolServerInput {
  name?: string | undefined;
  endpoint?: string | undefined;
  auth_mode?: AuthMode | undefined;
  auth_json?: string | Record<string, unknown> | null | undefined;
  enabled?: boolean | undefined;
}

function bad(field: string, message: string): AppError {
  return new AppError('invalid_request', `${field}: ${message}`, { metadata: { field } });
}

function checkName(name: string): void {
  if (name.includes('.')) throw bad('name', 'must not contain a dot (tools are named <server>.<tool>)');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw bad('name', 'must be 1-64 characters of letters, digits, _ or -');
  if (name === BUILTIN_SERVER) throw new AppError('conflict', `The name "${BUILTIN_SERVER}" is reserved for the bundled server.`);
}

function checkEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw bad('endpoint', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('endpoint', 'must use http or https');
  if (url.username || url.password) throw bad('endpoint', 'must not carry credentials; use auth_mode and auth_json');
}

/** auth_json arrives as a string holding a JSON object (spec) or as the object itself. */
function parseAuthJson(raw: ToolServerInput['auth_json']): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw bad('auth_json', 'must be a JSON object');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('auth_json', 'must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * Resolves the credential to store: validates the mode's shape; a field equal
 * to the current masked value keeps the stored secret (only when the mode is
 * unchanged); anything else is a new value.
 */
function resolveCredential(mode: AuthMode, given: Record<string, unknown> | undefined, current: { mode: AuthMode; auth: Record<string, string> } | undefined): Record<string, string> | null {
  const fields = AUTH_FIELDS[mode];
  if (mode === 'none') {
    if (given && Object.keys(given).length > 0) throw bad('auth_json', 'must be empty when auth_mode is none');
    return null;
  }
  const sameMode = current?.mode === mode;
  if (!given) {
    if (sameMode && current) return current.auth;
    throw bad('auth_json', `is required for auth_mode ${mode}`);
  }
  for (const key of Object.keys(given)) {
    if (!fields.some((f) => f.name === key)) throw bad(`auth_json.${key}`, `is not a field of auth_mode ${mode} (expected ${fields.map((f) => f.name).join(', ')})`);
  }
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = given[f.name];
    if (v === undefined || v === null) {
      if (mode === 'oauth') throw bad('auth_json.access_token', 'is required: automatic client-credentials exchange is unavailable');
      throw bad(`auth_json.${f.name}`, 'is required');
    }
    if (typeof v !== 'string') throw bad(`auth_json.${f.name}`, 'must be a string');
    if (v.trim() === '') throw bad(`auth_json.${f.name}`, 'must not be empty');
    const stored = current?.auth[f.name];
    if (f.secret && stored !== undefined && v === maskSecret(stored)) {
      if (!sameMode) throw bad(`auth_json.${f.name}`, 'a new credential is required when auth_mode changes');
      out[f.name] = stored;
    } else {
      if (f.secret && /^\*{4}/.test(v)) throw bad(`auth_json.${f.name}`, 'looks like a masked value that does not match the stored one');
      out[f.name] = v;
    }
  }
  return out;
}

function maskedAuth(mode: AuthMode, auth: Record<string, string> | null): string {
  if (!auth) return '';
  const out: Record<string, string> = {};
  for (const f of AUTH_FIELDS[mode]) {
    const v = auth[f.name];
    if (v !== undefined) out[f.name] = f.secret ? maskSecret(v) : v;
  }
  return JSON.stringify(out);
}

async function readAuth(deps: Deps, row: ToolServerRow): Promise<Record<string, string> | null> {
  return row.auth_enc ? (JSON.parse(await decryptSecret(deps.keyring, row.auth_enc)) as Record<string, string>) : null;
}

/** The API record: credential masked, never in clear. */
export async function present(deps: Deps, row: ToolServerRow) {
  const auth = await readAuth(deps, row);
  return {
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    auth_mode: row.auth_mode,
    auth_json: maskedAuth(row.auth_mode, auth),
    has_credential: auth !== null,
    enabled: row.enabled,
    status: row.status,
    status_detail: row.status_detail,
    tools: row.tools.map((t) => ({ name: t.name, description: t.description ?? '' })),
    last_probed_at: row.last_probed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The bundled in-process server, listed beside registered ones. */
export function builtinRecord() {
  return {
    id: 0,
    name: BUILTIN_SERVER,
    endpoint: null,
    auth_mode: 'none' as const,
    auth_json: '',
    has_credential: false,
    enabled: true,
    status: 'ok' as const,
    status_detail: 'bundled in-process server',
    tools: BUILTIN_TOOLS.map((t) => ({ name: t.name, description: t.description })),
    last_probed_at: null,
    created_at: null,
    updated_at: null,
  };
}

export async function listServers(deps: Deps, workspaceId: number) {
  const rows = await listToolServers(deps.pool, workspaceId);
  return [builtinRecord(), ...(await Promise.all(rows.map((r) => present(deps, r))))];
}

export async function createServer(deps: Deps, workspaceId: number, input: ToolServerInput) {
  if (input.name === undefined) throw bad('name', 'is required');
  if (input.endpoint === undefined) throw bad('endpoint', 'is required');
  checkName(input.name);
  checkEndpoint(input.endpoint);
  const mode = input.auth_mode ?? 'none';
  const auth = resolveCredential(mode, parseAuthJson(input.auth_json), undefined);
  const enc = auth ? await encryptSecret(deps.keyring, JSON.stringify(auth)) : null;
  const row = await withTransaction(deps.pool, async (db) => {
    const created = await insertToolServer(db, { workspace_id: workspaceId, name: input.name!, endpoint: input.endpoint!, auth_mode: mode, auth_enc: enc, enabled: input.enabled ?? true });
    if (!created) throw new AppError('conflict', `A tool server named "${input.name}" already exists in this workspace.`);
    await bumpRevision(db, workspaceId);
    return created;
  });
  return present(deps, row);
}

export async function updateServer(deps: Deps, workspaceId: number, id: number, input: ToolServerInput) {
  const row = await withTransaction(deps.pool, async (db) => {
    const current = await findToolServer(db, workspaceId, id, true);
    if (!current) throw new AppError('not_found', 'Tool server not found.');
    const name = input.name ?? current.name;
    const endpoint = input.endpoint ?? current.endpoint;
    const mode = input.auth_mode ?? current.auth_mode;
    if (input.name !== undefined) checkName(name);
    if (input.endpoint !== undefined) checkEndpoint(endpoint);
    const currentAuth = await readAuth(deps, current);
    const auth = resolveCredential(mode, parseAuthJson(input.auth_json), currentAuth ? { mode: current.auth_mode, auth: currentAuth } : { mode: current.auth_mode, auth: {} });
    if (await nameTaken(db, workspaceId, name, id)) throw new AppError('conflict', `A tool server named "${name}" already exists in this workspace.`);
    const unchanged = JSON.stringify(auth) === JSON.stringify(currentAuth) && mode === current.auth_mode;
    const enc = auth === null ? null : unchanged && current.auth_enc ? current.auth_enc : await encryptSecret(deps.keyring, JSON.stringify(auth));
    const updated = await updateToolServer(db, id, { name, endpoint, auth_mode: mode, auth_enc: enc, enabled: input.enabled ?? current.enabled });
    await bumpRevision(db, workspaceId);
    return updated!;
  });
  return present(deps, row);
}

export async function getServer(deps: Deps, workspaceId: number, id: number) {
  const row = await findToolServer(deps.pool, workspaceId, id);
  if (!row) throw new AppError('not_found', 'Tool server not found.');
  return present(deps, row);
}

export async function removeServer(deps: Deps, workspaceId: number, id: number): Promise<void> {
  await withTransaction(deps.pool, async (db) => {
    if (!(await deleteToolServer(db, workspaceId, id))) throw new AppError('not_found', 'Tool server not found.');
    await bumpRevision(db, workspaceId);
  });
}

function pinsOf(tools: ToolDefinition[]): Record<string, string> {
  return Object.fromEntries(tools.map((t) => [t.name, toolDefinitionHash(t)]));
}

async function runProbe(deps: Deps, row: ToolServerRow, opts: { timeoutMs?: number; slowMs?: number }): Promise<ProbeResult> {
  const auth = (await readAuth(deps, row)) ?? {};
  return probeServer(row.endpoint, { headers: authHeaders(row.auth_mode, auth), secrets: Object.values(auth), ...opts });
}

export async function probe(deps: Deps, workspaceId: number, id: number, opts: { timeoutMs?: number; slowMs?: number } = {}) {
  if (id === 0) throw new AppError('invalid_request', 'The bundled server "builtin" has no endpoint and cannot be probed.');
  const row = await findToolServer(deps.pool, workspaceId, id);
  if (!row) throw new AppError('not_found', 'Tool server not found.');
  const result = await runProbe(deps, row, opts);
  const saved = await withTransaction(deps.pool, async (db) => {
    // First listing pins the definitions; later ones never overwrite a pin.
    const r = await recordProbe(db, id, { status: result.status, detail: result.detail, tools: result.tools, latency_ms: result.latency_ms, pins: result.tools ? pinsOf(result.tools) : null });
    await bumpRevision(db, workspaceId);
    return r;
  });
  if (!saved) throw new AppError('not_found', 'Tool server not found.');
  return {
    id,
    status: result.status,
    tool_count: result.tools?.length ?? 0,
    tools: (result.tools ?? []).map((t) => t.name),
    latency_ms: result.latency_ms,
    detail: result.detail,
    probed_at: saved.last_probed_at,
  };
}

/** Accepts the server's current definitions as the pinned set (developer+). */
export async function pin(deps: Deps, workspaceId: number, id: number) {
  if (id === 0) throw new AppError('invalid_request', 'The bundled server "builtin" is pinned by the release itself.');
  const row = await findToolServer(deps.pool, workspaceId, id);
  if (!row) throw new AppError('not_found', 'Tool server not found.');
  const result = await runProbe(deps, row, {});
  if (!result.tools) throw new AppError('upstream_error', `Could not list the server's tools to pin them: ${result.detail}`);
  const pins = pinsOf(result.tools);
  await withTransaction(deps.pool, async (db) => {
    await setPins(db, id, pins, result.tools!);
    await bumpRevision(db, workspaceId);
  });
  return { id, pinned: Object.keys(pins).length, tools: Object.keys(pins) };
}

/** Runtime registry for sidecars: enabled servers only, never a credential. */
export async function runtimeRegistry(deps: Deps, workspaceId: number) {
  const rows = await listToolServers(deps.pool, workspaceId, true);
  return rows.map((r) => ({ id: r.id, name: r.name, endpoint: r.endpoint, auth_mode: r.auth_mode, enabled: true, status: r.status, tools: r.tools.map((t) => ({ name: t.name, description: t.description ?? '' })) }));
}
