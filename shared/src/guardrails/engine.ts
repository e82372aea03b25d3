// The synchronous evaluation path shared by the sidecar and the control
// plane's dry run: canonicalise once, run each needed detector once, map
// matches back to original offsets, decide block > mask > flag > allow.

import type { Action, EvaluateResult, Finding, Stage, Verdict } from './types.js'
import type { CompiledGuardrails, StagePlan } from './compile.js'
import { canonicalize, toOriginal, type CanonicalText } from './canonical.js'
import type { KeywordHit } from './detectors/keyword.js'
import { findRegex, type RegexHit } from './detectors/regex.js'
import type { Hit } from './detectors/types.js'
import { PII_DETECTORS } from './detectors/pii.js'
import { SECRET_DETECTORS } from './detectors/secret.js'

/** A finding in canonical offsets, before mapping back. */
export interface RawFinding {
  ref: number
  entity: string
  action: Action
  start: number
  end: number
}

export function scanCanonical(plan: StagePlan, c: CanonicalText): RawFinding[] {
  const found: RawFinding[] = []
  if (plan.keywords !== null) {
    const hits: KeywordHit[] = []
    plan.keywords.scan(c.folded, hits)
    for (const h of hits) {
      const ref = plan.refs[h.owner]
      if (ref !== undefined) found.push({ ref: h.owner, entity: ref.entity, action: ref.action, start: h.start, end: h.end })
    }
  }
  if (plan.regexSet !== null) {
    const hits: RegexHit[] = []
    for (const index of plan.regexSet.match(c.folded)) {
      const r = plan.regexes[index]
      if (r !== undefined) findRegex(r, c.folded, hits)
    }
    for (const h of hits) {
      const ref = plan.refs[h.owner]
      if (ref !== undefined) found.push({ ref: h.owner, entity: ref.entity, action: ref.action, start: h.start, end: h.end })
    }
  }
  for (const [entity, routes] of plan.pii) {
    const hits: Hit[] = []
    PII_DETECTORS[entity].scan(c, hits)
    for (const h of hits) for (const r of routes) found.push({ ref: r.ref, entity: h.entity, action: r.action, start: h.start, end: h.end })
  }
  if (plan.secrets.size > 0) {
    const hits: Hit[] = []
    for (const entity of plan.secrets.keys()) SECRET_DETECTORS[entity].scan(c, hits)
    // A generic assignment that overlaps a vendor token is the same secret, reported once.
    const specific = hits.filter((h) => h.entity !== 'generic_secret')
    for (const h of hits) {
      if (h.entity === 'generic_secret' && specific.some((s) => s.start < h.end && h.start < s.end)) continue
      const routes = plan.secrets.get(h.entity as never) ?? []
      for (const r of routes) found.push({ ref: r.ref, entity: h.entity, action: r.action, start: h.start, end: h.end })
    }
  }
  return found
}

export function toFindings(plan: StagePlan, c: CanonicalText, raw: readonly RawFinding[], offset = 0): Finding[] {
  const findings = raw.map((f): Finding => {
    const ref = plan.refs[f.ref]
    const span = toOriginal(c, f.start, f.end)
    return {
      guardrail_id: ref?.guardrail_id ?? '',
      rule_id: ref?.rule_id ?? '',
      type: ref?.type ?? 'keyword',
      entity: f.entity,
      start: span.start + offset,
      end: span.end + offset,
      action: f.action,
    }
  })
  return findings.sort((a, b) => a.start - b.start || b.end - a.end)
}

export function maskLabel(entity: string): string {
  return `[REDACTED:${entity.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}]`
}

/** Merge overlapping mask spans; a merged span keeps the label of its earliest, longest finding. */
export function maskSpans(findings: readonly Finding[]): Array<{ start: number; end: number; label: string }> {
  const spans: Array<{ start: number; end: number; label: string }> = []
  for (const f of findings) {
    if (f.action !== 'mask' || f.end <= f.start) continue
    const last = spans[spans.length - 1]
    if (last !== undefined && f.start < last.end) last.end = Math.max(last.end, f.end)
    else spans.push({ start: f.start, end: f.end, label: maskLabel(f.entity) })
  }
  return spans
}

export function applyMasks(text: string, spans: ReadonlyArray<{ start: number; end: number; label: string }>, offset = 0): string {
  if (spans.length === 0) return text
  let out = ''
  let at = 0
  for (const s of spans) {
    out += text.slice(at, s.start - offset) + s.label
    at = s.end - offset
  }
  return out + text.slice(at)
}

export function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.action === 'block')) return 'block'
  if (findings.some((f) => f.action === 'mask')) return 'mask'
  return findings.length > 0 ? 'flag' : 'allow'
}

export function blockInfo(plan: StagePlan, findings: readonly Finding[], stage: Stage): EvaluateResult['blocked'] {
  const first = findings.find((f) => f.action === 'block')
  if (first === undefined) return undefined
  const ref = plan.refs.find((r) => r.guardrail_id === first.guardrail_id && r.rule_id === first.rule_id)
  const info = { guardrail_id: first.guardrail_id, guardrail_name: ref?.guardrail_name ?? '', rule_id: first.rule_id, stage }
  return first.type === 'pii' || first.type === 'secret' ? { ...info, entity: first.entity } : info
}

export function evaluate(compiled: CompiledGuardrails, text: string, stage: Stage): EvaluateResult {
  const plan = compiled.stages[stage]
  if (plan.empty || text.length === 0) return { verdict: 'allow', findings: [], masked_text: text }
  const c = canonicalize(text)
  const findings = toFindings(plan, c, scanCanonical(plan, c))
  const verdict = verdictOf(findings)
  const result: EvaluateResult = { verdict, findings, masked_text: applyMasks(text, maskSpans(findings)) }
  const blocked = blockInfo(plan, findings, stage)
  if (blocked !== undefined) result.blocked = blocked
  return result
}
