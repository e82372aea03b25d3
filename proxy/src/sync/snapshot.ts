// A verified bundle compiled into the lookups the hot path uses. Built once
// per revision and swapped whole; never mutated after construction.
import type { BundleRelayKey, ConfigBundle } from '@agentwall/shared/bundle';
import { compileGuardrails, type CompiledGuardrails } from '@agentwall/shared/guardrails/index';

export interface SnapshotGuardrail {
  id: number;
  name: string;
  is_default: boolean;
  compiled: CompiledGuardrails;
}

export interface Snapshot {
  workspaceId: number;
  revision: number;
  issuedAt: string;
  relayKeysByHash: ReadonlyMap<string, BundleRelayKey>;
  /** Each live guardrail compiled once; a bundle whose guardrails do not compile is refused. */
  guardrails: ReadonlyMap<number, SnapshotGuardrail>;
  bundle: Readonly<ConfigBundle>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Throws on a bundle whose shape is wrong: a bad bundle must never replace a good one. */
export function compileSnapshot(payload: unknown): Snapshot {
  if (!isRecord(payload)) throw new Error('bundle is not an object');
  const { workspace_id, revision, issued_at, relay_keys } = payload;
  if (typeof workspace_id !== 'number' || typeof revision !== 'number' || typeof issued_at !== 'string' || !Array.isArray(relay_keys)) {
    throw new Error('bundle is missing workspace_id, revision, issued_at or relay_keys');
  }
  const relayKeysByHash = new Map<string, BundleRelayKey>();
  for (const k of relay_keys) {
    if (!isRecord(k) || typeof k['key_hash'] !== 'string' || typeof k['id'] !== 'number') throw new Error('bundle has a malformed relay key');
    relayKeysByHash.set(k['key_hash'], k as unknown as BundleRelayKey);
  }
  const guardrails = new Map<number, SnapshotGuardrail>();
  const section = payload['guardrails'];
  if (section !== undefined) {
    if (!Array.isArray(section)) throw new Error('bundle guardrails section is not a list');
    for (const g of section) {
      if (!isRecord(g) || typeof g['id'] !== 'number' || typeof g['name'] !== 'string') throw new Error('bundle has a malformed guardrail');
      // Throws GuardrailCompileError on rules the engine refuses: the whole bundle is refused.
      const compiled = compileGuardrails([{ id: String(g['id']), name: g['name'], rules: g['rules'] }]);
      guardrails.set(g['id'], { id: g['id'], name: g['name'], is_default: g['is_default'] === true, compiled });
    }
  }
  return Object.freeze({ workspaceId: workspace_id, revision, issuedAt: issued_at, relayKeysByHash, guardrails, bundle: Object.freeze(payload as ConfigBundle) });
}
