// Locating user-regex matches fast. re2js answers "is there a match?" with a
// DFA (fast) but finds positions with an NFA that costs ~0.4 µs per character
// scanned. So we read the compiled program (re2js 2.10, pinned) for the
// character classes every match must start with — `ticket-[a-z]{2,4}-\d+`
// starts `t,i,c,k,e,t,-,[a-z]` — turn them into a plain JS RegExp made only of
// character classes (no quantifiers: linear), and run the NFA only from the
// positions it finds. Anything unexpected returns null and the caller falls
// back to the slower, always-correct path.

import type { RE2JS } from 're2js'

const OP = { ALT: 1, ALT_MATCH: 2, CAPTURE: 3, EMPTY_WIDTH: 4, FAIL: 5, MATCH: 6, NOP: 7, RUNE: 8, RUNE1: 9, RUNE_ANY: 10, RUNE_ANY_NOT_NL: 11 } as const
const FOLD_CASE = 1
const MAX_STEPS = 8
const MAX_BRANCHES = 8

interface Inst {
  op: number
  out: number
  arg: number
  runes: ArrayLike<number>
}

interface Internals {
  insts: Inst[]
  start: number
  /** re2js's own (undocumented) search from `pos` with `end` as the input's end; returns [found, [start, end]]. */
  search(text: string, pos: number, end: number): [number, number] | null
}

export function internals(re: RE2JS): Internals | null {
  const r2: unknown = (re as unknown as { re2Input?: unknown }).re2Input
  if (typeof r2 !== 'object' || r2 === null) return null
  const { prog, matchWithGroup } = r2 as { prog?: { inst?: unknown; start?: unknown }; matchWithGroup?: unknown }
  if (typeof matchWithGroup !== 'function' || !Array.isArray(prog?.inst) || typeof prog?.start !== 'number') return null
  const call = matchWithGroup as (input: string, start: number, end: number, anchor: number, ngroup: number) => unknown
  return {
    insts: prog.inst as Inst[],
    start: prog.start,
    search(text, pos, end) {
      const res = call.call(r2, text, pos, end, 0 /* UNANCHORED */, 1)
      if (!Array.isArray(res) || res[0] !== true || !Array.isArray(res[1])) return null
      const [s, e] = res[1] as unknown[]
      return typeof s === 'number' && typeof e === 'number' ? [s, e] : null
    },
  }
}

const hex = (c: number) => `\\u{${c.toString(16)}}`

/** One instruction as a JS character class over folded text; `size` counts the characters it admits. */
function classOf(i: Inst): { src: string; size: number } | null {
  if (i.op === OP.RUNE_ANY) return { src: '[^]', size: Infinity }
  if (i.op === OP.RUNE_ANY_NOT_NL) return { src: '[^\\n]', size: Infinity }
  const r = Array.from(i.runes)
  if (i.op === OP.RUNE1 || (r.length === 1 && (i.arg & FOLD_CASE) !== 0)) {
    const c = r[0]
    if (c === undefined) return null
    // Folded text holds lower case only, but keep both forms: canonical text may keep other cases (ß, Kelvin).
    const ch = String.fromCodePoint(c)
    const lower = ch.toLowerCase()
    if (i.op === OP.RUNE1 || lower === ch) return { src: `[${hex(c)}]`, size: 1 }
    return { src: `[${hex(c)}${[...lower].length === 1 ? hex(lower.codePointAt(0) ?? c) : ''}]`, size: 2 }
  }
  if (i.op !== OP.RUNE || r.length % 2 !== 0 || r.length === 0) return null
  if ((i.arg & FOLD_CASE) !== 0) return null
  let src = '['
  let size = 0
  for (let k = 0; k < r.length; k += 2) {
    const lo = r[k] ?? 0
    const hi = r[k + 1] ?? 0
    src += lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`
    size += hi - lo + 1
  }
  return { src: `${src}]`, size }
}

/** Sequences of classes along each path from `pc`, or null when a path could match without consuming. */
function sequences(insts: Inst[], pc: number, depth: number, seen: Set<number>): Array<Array<{ src: string; size: number }>> | null {
  const i = insts[pc]
  if (i === undefined || seen.has(pc)) return [[]]
  if (depth >= MAX_STEPS) return [[]]
  switch (i.op) {
    case OP.MATCH:
      return null // an empty remainder: matches can start anywhere
    case OP.FAIL:
      return []
    case OP.NOP:
    case OP.CAPTURE:
    case OP.EMPTY_WIDTH:
      return sequences(insts, i.out, depth, new Set(seen).add(pc))
    case OP.ALT:
    case OP.ALT_MATCH: {
      const next = new Set(seen).add(pc)
      const a = sequences(insts, i.out, depth, next)
      const b = sequences(insts, i.arg, depth, next)
      if (a === null || b === null) return null
      const all = [...a, ...b]
      return all.length > MAX_BRANCHES ? null : all
    }
    default: {
      const cls = classOf(i)
      if (cls === null) return [[]]
      const rest = sequences(insts, i.out, depth + 1, new Set(seen).add(pc))
      // A path ending early (MATCH) still requires this class: keep it as the whole sequence.
      return (rest ?? [[]]).map((seq) => [cls, ...seq])
    }
  }
}

/**
 * A JS RegExp (flags `gu`) matching the start of every possible match, or
 * null when no selective one exists: each branch needs two or more classes,
 * at least one of them a literal character.
 */
export function startFilter(re: RE2JS): RegExp | null {
  const inner = internals(re)
  if (inner === null) return null
  const seqs = sequences(inner.insts, inner.start, 0, new Set())
  if (seqs === null || seqs.length === 0) return null
  for (const seq of seqs) if (seq.length < 2 || !seq.some((c) => c.size <= 2)) return null
  const source = seqs.map((seq) => seq.map((c) => c.src).join('')).join('|')
  try {
    return new RegExp(source, 'gu')
  } catch {
    return null
  }
}
