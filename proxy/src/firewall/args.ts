// Walks tool-call arguments once per call into the flat list of strings the
// detectors read. Anything that is not plain JSON data, or that is cyclic,
// deeper than 64 or larger than the limits, is reported as an error so the
// engine can deny: a payload hidden below what we inspect must not pass.

export interface StringLeaf {
  value: string;
  /** Nearest enclosing object key, lower-cased ("url", "command"); undefined at top level. */
  key: string | undefined;
  /** The leaf is an object key, not a value. */
  isKey: boolean;
  /** The leaf came from a number (a host given as 2130706433). */
  fromNumber: boolean;
}

export type WalkError = 'cyclic' | 'too_deep' | 'too_large' | 'unsupported_type';
export type WalkResult = { ok: true; root: unknown; strings: StringLeaf[] } | { ok: false; error: WalkError; detail: string };

export interface WalkLimits {
  maxDepth: number;
  maxNodes: number;
  /** Total characters across all strings, counting JSON found inside strings again. */
  maxChars: number;
}
export const DEFAULT_WALK_LIMITS: WalkLimits = { maxDepth: 64, maxNodes: 50_000, maxChars: 4 * 1024 * 1024 };

class WalkFailure extends Error {
  constructor(
    readonly kind: WalkError,
    detail: string,
  ) {
    super(detail);
  }
}

// Strings that look like JSON are parsed and walked too: tool arguments
// often carry JSON inside a string field, and models emit `arguments` as a
// JSON string.
function embeddedJson(s: string): unknown {
  if (s.length < 2) return undefined;
  const a = s.charCodeAt(0);
  const b = s.charCodeAt(s.length - 1);
  const looksLike = (a === 0x7b && b === 0x7d) || (a === 0x5b && b === 0x5d);
  if (!looksLike) {
    const t = s.trim();
    if (t.length < 2 || !((t[0] === '{' && t.endsWith('}')) || (t[0] === '[' && t.endsWith(']')))) return undefined;
  }
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
}

interface WalkState {
  limits: WalkLimits;
  strings: StringLeaf[];
  /** The objects above the current one: a cycle returns to one of them. */
  ancestors: object[];
  nodes: number;
  chars: number;
}

// A module-level recursive function rather than a closure: the walker runs
// on every call, and per-call closures cost (tsx names each one).
function visit(st: WalkState, v: unknown, key: string | undefined, depth: number): void {
  if (depth > st.limits.maxDepth) throw new WalkFailure('too_deep', `nesting deeper than ${st.limits.maxDepth}`);
  if (++st.nodes > st.limits.maxNodes) throw new WalkFailure('too_large', `more than ${st.limits.maxNodes} values`);
  switch (typeof v) {
    case 'string': {
      st.chars += v.length;
      if (st.chars > st.limits.maxChars) throw new WalkFailure('too_large', `more than ${st.limits.maxChars} characters`);
      st.strings.push({ value: v, key, isKey: false, fromNumber: false });
      const inner = embeddedJson(v);
      if (inner !== undefined && typeof inner === 'object' && inner !== null) visit(st, inner, key, depth + 1);
      return;
    }
    case 'number':
      if (Number.isFinite(v)) st.strings.push({ value: String(v), key, isKey: false, fromNumber: true });
      return;
    case 'boolean':
    case 'undefined':
      return;
    case 'object': {
      if (v === null) return;
      if (st.ancestors.includes(v)) throw new WalkFailure('cyclic', 'arguments refer to themselves');
      const isArray = Array.isArray(v);
      const proto: unknown = Object.getPrototypeOf(v);
      if (!isArray && proto !== Object.prototype && proto !== null) {
        throw new WalkFailure('unsupported_type', 'arguments hold a non-plain object');
      }
      st.ancestors.push(v);
      if (isArray) {
        for (const item of v as unknown[]) visit(st, item, key, depth + 1);
      } else {
        // for-in lists the same keys as Object.keys() for a plain object
        // (its prototype, checked above, has no enumerable keys) without
        // building the array.
        for (const k in v) {
          st.chars += k.length;
          st.strings.push({ value: k, key, isKey: true, fromNumber: false });
          visit(st, (v as Record<string, unknown>)[k], k.toLowerCase(), depth + 1);
        }
      }
      st.ancestors.pop();
      return;
    }
    default:
      // function, symbol, bigint: not JSON, so not something we can judge.
      throw new WalkFailure('unsupported_type', `arguments hold a ${typeof v}`);
  }
}

export function walkArguments(args: unknown, limits: WalkLimits = DEFAULT_WALK_LIMITS): WalkResult {
  const st: WalkState = { limits, strings: [], ancestors: [], nodes: 0, chars: 0 };
  try {
    let root = args;
    if (typeof args === 'string') {
      const inner = embeddedJson(args);
      if (inner !== undefined) root = inner;
    }
    visit(st, args, undefined, 0);
    return { ok: true, root, strings: st.strings };
  } catch (err) {
    if (err instanceof WalkFailure) return { ok: false, error: err.kind, detail: err.message };
    if (err instanceof RangeError) return { ok: false, error: 'too_deep', detail: 'stack exhausted' };
    throw err;
  }
}

/**
 * Does any value at a dot path pass `test`? `*` matches every key or index
 * at that level. Only the plain object tree is followed, not JSON inside
 * strings. Walks depth-first without building the list of values: this
 * runs for every args_match rule of every call.
 */
export function someAtPath(root: unknown, segments: readonly string[], test: (v: unknown) => boolean, from = 0): boolean {
  if (from === segments.length) return test(root);
  if (root === null || typeof root !== 'object') return false;
  const seg = segments[from] as string;
  if (seg === '*') {
    if (Array.isArray(root)) {
      for (const child of root) if (someAtPath(child, segments, test, from + 1)) return true;
    } else {
      for (const k in root) {
        if (Object.prototype.hasOwnProperty.call(root, k) && someAtPath((root as Record<string, unknown>)[k], segments, test, from + 1)) return true;
      }
    }
    return false;
  }
  return Object.prototype.hasOwnProperty.call(root, seg) && someAtPath((root as Record<string, unknown>)[seg], segments, test, from + 1);
}
