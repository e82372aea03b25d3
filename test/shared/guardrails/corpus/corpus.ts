// Loads the labelled corpora, expands generated secrets, derives evasion
// variants (zero-width, fullwidth, homoglyph) and scores a detector run.
// Shared by the accuracy test and bench/guardrail-accuracy.ts.

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { FAKES, seeded, type Rng } from './fakes.js'
import { compileGuardrails } from '../../../../shared/src/guardrails/compile.js'
import { evaluate } from '../../../../shared/src/guardrails/engine.js'
import type { Finding } from '../../../../shared/src/guardrails/types.js'

export interface Label {
  entity: string
  start: number
  end: number
}

export interface Sample {
  text: string
  labels: Label[]
  family: 'pii' | 'secret'
  variant: 'plain' | 'zero-width' | 'fullwidth' | 'homoglyph'
  note?: string
}

interface CorpusFile {
  positives: string[]
  negatives: Array<[string, string]>
}

const read = (name: string): CorpusFile =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`./${name}`, import.meta.url)), 'utf8')) as CorpusFile

const MARK = /\{\{([a-z0-9_]+):((?:(?!\}\}).)*)\}\}/gs

/** Replace `{{entity:value}}` marks by their value (or a generated one) and record spans. */
function expand(template: string, rng: Rng, valueOf: (entity: string, value: string) => string = (e, v) => v): { text: string; labels: Label[] } {
  let text = ''
  let at = 0
  const labels: Label[] = []
  for (const m of template.matchAll(MARK)) {
    const entity = m[1] ?? ''
    let value = m[2] ?? ''
    if (value.startsWith('$gen')) {
      const gen = FAKES[entity]
      if (gen === undefined) throw new Error(`no fake generator for ${entity}`)
      value = gen(rng, value.split(':')[1] ?? '')
    }
    value = valueOf(entity, value)
    text += template.slice(at, m.index)
    labels.push({ entity, start: text.length, end: text.length + value.length })
    text += value
    at = (m.index ?? 0) + m[0].length
  }
  return { text: text + template.slice(at), labels }
}

// Evasions rewrite only the labelled values: the detector must see through them.
const HOMOGLYPHS: Record<string, string> = {
  a: '\u0430', e: '\u0435', o: '\u043e', p: '\u0440', c: '\u0441', x: '\u0445', y: '\u0443', i: '\u0456',
  A: '\u0410', E: '\u0415', O: '\u041e', P: '\u0420', C: '\u0421', X: '\u0425', B: '\u0412', H: '\u041d', K: '\u041a', M: '\u041c', T: '\u0422',
}
const EVASIONS: Record<Exclude<Sample['variant'], 'plain'>, (v: string) => string> = {
  'zero-width': (v) => [...v].map((ch, i) => (i % 3 === 2 ? ch + (i % 2 === 0 ? '\u200b' : '\u00ad') : ch)).join(''),
  fullwidth: (v) => [...v].map((ch) => (ch >= '!' && ch <= '~' ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch)).join(''),
  homoglyph: (v) => [...v].map((ch) => HOMOGLYPHS[ch] ?? ch).join(''),
}

/** How many differently generated values each secret template yields. */
const SECRET_INSTANCES = 4

export function loadCorpus(): Sample[] {
  const rng = seeded(20240917)
  const samples: Sample[] = []
  const sets: Array<[CorpusFile, Sample['family'], number]> = [
    [read('pii.json'), 'pii', 1],
    [read('secrets.json'), 'secret', SECRET_INSTANCES],
  ]
  for (const [file, family, instances] of sets) {
    for (const template of file.positives) {
      for (let n = 0; n < (template.includes('$gen') ? instances : 1); n++) {
        // Each variant re-seeds from the same point so the evasion applies to the same value.
        const seed = Math.floor(rng() * 2 ** 31)
        samples.push({ ...expand(template, seeded(seed)), family, variant: 'plain' })
        for (const [variant, evade] of Object.entries(EVASIONS)) {
          samples.push({ ...expand(template, seeded(seed), (_e, v) => evade(v)), family, variant: variant as Sample['variant'] })
        }
      }
    }
    for (const [text, note] of file.negatives) samples.push({ text, labels: [], family, variant: 'plain', note })
  }
  return samples
}

export interface EntityScore {
  entity: string
  positives: number
  tp: number
  fn: number
  fp: number
  precision: number
  recall: number
}

export interface Miss {
  kind: 'fn' | 'fp'
  entity: string
  sample: Sample
  finding?: Finding
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end

export function scoreCorpus(samples: readonly Sample[]): { scores: EntityScore[]; misses: Miss[] } {
  const compiled = compileGuardrails([
    { id: 'corpus', name: 'corpus', rules: [{ type: 'pii', stage: 'both', entities: { '*': 'mask' } }, { type: 'secret', stage: 'both', entities: { '*': 'mask' } }] },
  ])
  const counts = new Map<string, { positives: number; tp: number; fp: number }>()
  const bump = (entity: string) => {
    const c = counts.get(entity) ?? { positives: 0, tp: 0, fp: 0 }
    counts.set(entity, c)
    return c
  }
  const misses: Miss[] = []
  for (const sample of samples) {
    const { findings } = evaluate(compiled, sample.text, 'input')
    for (const label of sample.labels) {
      const c = bump(label.entity)
      c.positives++
      if (findings.some((f) => f.entity === label.entity && overlaps(f, label))) c.tp++
      else misses.push({ kind: 'fn', entity: label.entity, sample })
    }
    for (const f of findings) {
      if (sample.labels.some((l) => l.entity === f.entity && overlaps(f, l))) continue
      bump(f.entity).fp++
      misses.push({ kind: 'fp', entity: f.entity, sample, finding: f })
    }
  }
  const scores = [...counts.entries()]
    .map(([entity, c]) => ({
      entity,
      positives: c.positives,
      tp: c.tp,
      fn: c.positives - c.tp,
      fp: c.fp,
      precision: c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp),
      recall: c.positives === 0 ? 1 : c.tp / c.positives,
    }))
    .sort((a, b) => a.entity.localeCompare(b.entity))
  return { scores, misses }
}
