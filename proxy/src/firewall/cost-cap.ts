// Verdict `cap_cost`: a call counter per (policy, rule, scope), where the
// scope is the conversation, the UTC hour or the UTC day. In memory, per
// sidecar: counts restart with the process and are not shared between
// sidecars (a cap is per agent instance, not per workspace).
//
// Calls without a conversation id under `per: conversation` all count
// against one shared "no conversation" bucket per rule, so an agent cannot
// escape the cap by omitting the id.
//
// Memory is bounded: window counters expire at the window's end,
// conversation counters after `conversationTtlMs` without a call, and past
// `maxEntries` the least recently used counter is dropped.
import type { CostCapScope } from '@agentwall/shared/schemas/firewall';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface CostCapKey {
  policy_id: number;
  rule_id: number;
  per: CostCapScope;
  conversation_id?: string | undefined;
}

export interface CostCapTake {
  allowed: boolean;
  /** Calls counted in this window, including this one when allowed. */
  count: number;
  scope: string;
}

export interface CostCapStore {
  take(key: CostCapKey, maxCalls: number, now: number): CostCapTake;
  readonly size: number;
}

export interface CostCapOptions {
  maxEntries?: number; // counters kept; default 100 000
  conversationTtlMs?: number; // idle conversation counter lifetime; default 24 h
}

export function scopeOf(key: CostCapKey, now: number): { scope: string; expiresAt: number } {
  if (key.per === 'hour') {
    const h = Math.floor(now / HOUR_MS);
    return { scope: `hour:${h}`, expiresAt: (h + 1) * HOUR_MS };
  }
  if (key.per === 'day') {
    const d = Math.floor(now / DAY_MS);
    return { scope: `day:${d}`, expiresAt: (d + 1) * DAY_MS };
  }
  // Prefixes keep a real id from colliding with the shared bucket.
  return { scope: key.conversation_id === undefined || key.conversation_id === '' ? 'no-conversation' : `conversation:${key.conversation_id}`, expiresAt: Number.NaN };
}

export function createCostCapStore(options: CostCapOptions = {}): CostCapStore {
  const maxEntries = options.maxEntries ?? 100_000;
  const ttl = options.conversationTtlMs ?? DAY_MS;
  const counters = new Map<string, { count: number; expiresAt: number }>();

  const evict = (now: number): void => {
    for (const [k, e] of counters) if (e.expiresAt <= now) counters.delete(k);
    // Map order is least recently used first (entries are re-inserted on use).
    for (const k of counters.keys()) {
      if (counters.size <= Math.floor(maxEntries * 0.9)) break;
      counters.delete(k);
    }
  };

  return {
    get size() {
      return counters.size;
    },
    take(key, maxCalls, now) {
      const { scope, expiresAt } = scopeOf(key, now);
      const id = `${key.policy_id}/${key.rule_id}/${scope}`;
      let e = counters.get(id);
      if (e && e.expiresAt <= now) e = undefined;
      counters.delete(id);
      if (!e) e = { count: 0, expiresAt: 0 };
      e.expiresAt = Number.isNaN(expiresAt) ? now + ttl : expiresAt;
      const allowed = e.count < maxCalls;
      if (allowed) e.count++;
      counters.set(id, e);
      if (counters.size > maxEntries) evict(now);
      return { allowed, count: e.count, scope };
    },
  };
}
