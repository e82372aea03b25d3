// User regexes run on re2js (RE2 semantics): matching time is linear in the
// text whatever pattern a user saved, so `(a+)+$` cannot stall a sidecar.
// Patterns run over canonical folded text and are always case-insensitive,
// so `[A-Z]{3}-\d+` written by a user still matches after folding.

import { RE2JS, RE2Set } from 're2js'
import { internals, startFilter } from './regex-prefix.js'

/**
 * Longest match guaranteed for a pattern with no finite bound (characters).
 * The sidecar's stream can only hold back so much, so the dry run and the
 * sidecar agree on this limit: matches up to the cap are always found;
 * longer ones may be missed, and any reported match is clipped to the cap.
 */
export const REGEX_MATCH_CAP = 4096

/** Flags a rule may carry; `g` and `u` are accepted and meaningless (RE2 is always global and Unicode). */
export const REGEX_FLAGS = /^[imsgu]*$/

export function compileUserRegex(pattern: string, flags = ''): RE2JS {
  let f = RE2JS.CASE_INSENSITIVE
  if (flags.includes('m')) f |= RE2JS.MULTILINE
  if (flags.includes('s')) f |= RE2JS.DOTALL
  return RE2JS.compile(pattern, f)
}

/** Inline-flag form for an RE2Set, which takes one flag set for all members. */
export function inlinePattern(pattern: string, flags = ''): string {
  return `(?i${flags.includes('m') ? 'm' : ''}${flags.includes('s') ? 's' : ''}:${pattern})`
}

const RUNE_OPS = { RUNE: 8, RUNE1: 9, RUNE_ANY: 10, RUNE_ANY_NOT_NL: 11 } as const
const MATCH_OP = 6
const ALT_OPS = new Set([1, 2])

interface InstLike {
  op: number
  out: number
  arg: number
  runes: ArrayLike<number>
}

// Reads re2js's compiled program (a pinned dependency) to find the longest
// possible match in UTF-16 units: the longest path to MATCH, or null when a
// loop consumes characters. Anything unexpected is treated as unbounded.
export function regexMaxLength(re: RE2JS): number | null {
  const prog: unknown = (re as unknown as { re2Input?: { prog?: unknown } }).re2Input?.prog
  if (typeof prog !== 'object' || prog === null) return null
  const { inst, start } = prog as { inst?: unknown; start?: unknown }
  if (!Array.isArray(inst) || typeof start !== 'number') return null
  const insts = inst as InstLike[]
  const memo = new Map<number, number | null>()
  const onStack = new Set<number>()
  const width = (i: InstLike): number => {
    if (i.op === RUNE_OPS.RUNE_ANY || i.op === RUNE_OPS.RUNE_ANY_NOT_NL) return 2
    for (let k = 0; k < i.runes.length; k++) if ((i.runes[k] ?? 0) > 0xffff) return 2
    return 1
  }
  // Iterative DFS would be safer for huge programs; RE2 caps program size, so recursion depth is bounded.
  const longest = (pc: number): number | null => {
    if (memo.has(pc)) return memo.get(pc) ?? null
    if (onStack.has(pc)) return null
    const i = insts[pc]
    if (i === undefined) return null
    onStack.add(pc)
    let result: number | null
    if (i.op === MATCH_OP) result = 0
    else if (i.op === 5) result = -Infinity // FAIL: no path
    else if (ALT_OPS.has(i.op)) {
      const a = longest(i.out)
      const b = longest(i.arg)
      result = a === null || b === null ? null : Math.max(a, b)
    } else {
      const rest = longest(i.out)
      const isRune = i.op >= RUNE_OPS.RUNE && i.op <= RUNE_OPS.RUNE_ANY_NOT_NL
      result = rest === null ? null : rest + (isRune ? width(i) : 0)
    }
    onStack.delete(pc)
    memo.set(pc, result)
    return result
  }
  try {
    const n = longest(start)
    return n === null || !Number.isFinite(n) ? null : n
  } catch {
    return null
  }
}

export interface UserRegex {
  readonly re: RE2JS
  readonly bound: number // hold-back bound: exact max length, or the cap
  readonly unbounded: boolean
  readonly owner: number
  /** Where matches can start (see regex-prefix.ts); null → bisection. */
  readonly starts: RegExp | null
  readonly search: ((text: string, pos: number, end: number) => [number, number] | null) | null
}

export function userRegex(re: RE2JS, owner: number): UserRegex {
  const exact = regexMaxLength(re)
  const inner = internals(re)
  return {
    re,
    owner,
    unbounded: exact === null,
    bound: exact === null ? REGEX_MATCH_CAP : Math.min(exact, REGEX_MATCH_CAP),
    starts: inner === null ? null : startFilter(re),
    search: inner === null ? null : inner.search,
  }
}

export interface RegexHit {
  readonly start: number
  readonly end: number
  readonly owner: number
}

/** One DFA pass over the text says which regexes match at all. */
export function buildRegexSet(patterns: readonly string[]): RE2Set {
  const set = new RE2Set(RE2Set.UNANCHORED, 0)
  for (const p of patterns) set.add(p)
  set.compile()
  return set
}

const LEAF = 512

// re2js finds positions with its NFA (slow) but answers yes/no with a DFA
// (fast). Bisect with the DFA down to small windows, then locate inside them.
// A window keeps `bound + 1` characters of context on each side; a match is
// kept only by the leaf whose core holds its start, and never when it touches
// a window edge that is not a real text edge (`^`, `$`, `\b` would lie there).
export function findRegex(r: UserRegex, text: string, out: RegexHit[]): void {
  if (r.starts !== null && r.search !== null) findFromStarts(r, r.starts, r.search, text, out)
  else bisect(r, text, out)
}

// Most matches are short even when the pattern is unbounded: try a short window first.
const SHORT_WINDOW = 256

// Each search may scan `bound` characters past its start; a failed search
// must therefore also rule out the next STRIDE starts, or text full of false
// starts (`aaaa…` for `a[a-z]*!`) would cost bound × length.
function findFromStarts(
  r: UserRegex,
  starts: RegExp,
  search: (text: string, pos: number, end: number) => [number, number] | null,
  text: string,
  out: RegexHit[],
): void {
  const stride = Math.max(r.bound, SHORT_WINDOW)
  starts.lastIndex = 0
  for (let m = starts.exec(text); m !== null; m = starts.exec(text)) {
    const p = m.index
    let found: [number, number] | null = null
    const short = p + SHORT_WINDOW + 1
    if (r.unbounded && short < text.length) {
      found = search(text, p, short)
      if (found !== null && found[1] >= short) found = null // may be cut short: search again below
    }
    let end = text.length
    if (found === null) {
      end = Math.min(text.length, p + r.bound + 1 + stride)
      found = search(text, p, end)
    }
    if (found === null) {
      // no match starts in [p, end - bound): resume after that
      starts.lastIndex = Math.max(p + 1, end - r.bound)
      continue
    }
    const [s, e] = found
    if (e > s) out.push({ start: s, end: Math.min(e, s + REGEX_MATCH_CAP), owner: r.owner })
    starts.lastIndex = Math.max(e, s + 1, p + 1)
  }
}

function bisect(r: UserRegex, text: string, out: RegexHit[]): void {
  const margin = r.bound + 1
  const visit = (lo: number, hi: number): void => {
    const wLo = Math.max(0, lo - margin)
    const wHi = Math.min(text.length, hi + margin)
    if (hi - lo > LEAF) {
      const mid = lo + ((hi - lo) >> 1)
      for (const [a, b] of [[lo, mid], [mid, hi]] as const) {
        const sLo = Math.max(0, a - margin)
        const sHi = Math.min(text.length, b + margin)
        if (r.re.test(text.slice(sLo, sHi))) visit(a, b)
      }
      return
    }
    const window = text.slice(wLo, wHi)
    const m = r.re.matcher(window)
    let from = 0
    while (from <= window.length && m.find(from)) {
      const s = m.start() + wLo
      let e = m.end() + wLo
      from = m.end() > m.start() ? m.end() : m.end() + 1
      if (s < lo) continue
      if (s >= hi) break
      if (s === wLo && wLo !== 0) continue
      if (e === s) continue // empty matches redact nothing
      if (e === wHi && wHi !== text.length && e - s < r.bound) continue
      if (e - s > REGEX_MATCH_CAP) e = s + REGEX_MATCH_CAP
      out.push({ start: s, end: e, owner: r.owner })
    }
  }
  visit(0, text.length)
}
