// Streaming output (CONTRACT §9 Streams): text is emitted only once no match
// can still be growing over it. The scanner holds back the longest match any
// rule of the stage can produce (measured in canonical characters, so padding
// a secret with zero-width characters does not stretch the window), rescans
// held text as chunks arrive, and keeps the same amount of already-emitted
// text as look-behind context. A mask span that straddles the emit point is
// emitted whole and redacted; a block ends the stream before anything more.

import type { BlockInfo, Finding, Stage } from './types.js'
import type { CompiledGuardrails } from './compile.js'
import { canonicalize, originalOffset } from './canonical.js'
import { applyMasks, blockInfo, maskSpans, scanCanonical, toFindings } from './engine.js'

/** Extra characters held for look-arounds (`(?!\.\d)`, `\b`) just past a longest match. */
const LOOKAROUND_MARGIN = 16

export interface StreamStep {
  emit: string
  blocked?: BlockInfo
  /** Findings in the emitted part, offsets in the whole stream's original text. */
  findings: Finding[]
}

export interface StreamScanner {
  push(chunk: string): StreamStep
  end(): StreamStep
  /** Characters the scanner may hold back at most (canonical). */
  readonly holdBack: number
}

export function createStreamScanner(compiled: CompiledGuardrails, stage: Stage): StreamScanner {
  const plan = compiled.stages[stage]
  const holdBack = plan.maxMatch + LOOKAROUND_MARGIN
  // Rescanning the whole hold-back on every token would be quadratic; scan
  // once at least `step` new characters are waiting (nothing is emitted unscanned).
  const step = Math.max(64, holdBack >> 2)
  let context = '' // emitted text kept for look-behind
  let pending = '' // received, not yet emitted
  let base = 0 // stream offset of pending[0]
  let done = false

  const run = (final: boolean): StreamStep => {
    if (done) return { emit: '', findings: [] }
    if (plan.empty) {
      const emit = pending
      base += pending.length
      pending = ''
      return { emit, findings: [] }
    }
    const window = context + pending
    const ctx = context.length
    const c = canonicalize(window)
    const all = toFindings(plan, c, scanCanonical(plan, c), base - ctx).filter((f) => f.end > base)
    const blocked = blockInfo(plan, all, stage)
    if (blocked !== undefined) {
      done = true
      pending = ''
      return { emit: '', blocked, findings: all.filter((f) => f.action === 'block') }
    }
    let cut = window.length
    if (!final) {
      const canonicalCut = c.folded.length - holdBack
      cut = canonicalCut <= 0 ? 0 : originalOffset(c, canonicalCut)
      if (cut <= ctx) return { emit: '', findings: [] }
      // A finding that began before the cut is complete (it is shorter than the hold-back): emit it whole.
      for (const f of all) if (f.start - (base - ctx) < cut) cut = Math.max(cut, f.end - (base - ctx))
      const code = window.charCodeAt(cut - 1)
      if (cut < window.length && code >= 0xd800 && code <= 0xdbff) cut-- // never split a surrogate pair
    }
    const emitted = all.filter((f) => f.start < base - ctx + cut)
    const spans = maskSpans(emitted).map((s) => ({ ...s, start: Math.max(s.start, base) }))
    const raw = pending.slice(0, cut - ctx)
    const emit = applyMasks(raw, spans, base)
    context = (context + raw).slice(-holdBack)
    pending = pending.slice(cut - ctx)
    base += raw.length
    return { emit, findings: emitted }
  }

  return {
    holdBack,
    push(chunk) {
      if (done) return { emit: '', findings: [] }
      pending += chunk
      if (!plan.empty && pending.length < holdBack + step) return { emit: '', findings: [] }
      return run(false)
    },
    end() {
      const out = run(true)
      done = true
      return out
    },
  }
}
