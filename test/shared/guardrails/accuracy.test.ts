// Detector accuracy over the labelled corpora (corpus/*.json), evasions
// included: every labelled value is found, almost nothing else is.
import t from 'tap'
import { loadCorpus, scoreCorpus } from './corpus/corpus.js'

const samples = loadCorpus()
const { scores, misses } = scoreCorpus(samples)
const describe = (m: (typeof misses)[number]) => `${m.kind} ${m.entity} (${m.sample.variant}): ${JSON.stringify(m.sample.text.slice(0, 120))}`

t.test('the corpus has at least 15 labelled values per entity', async (t) => {
  for (const s of scores) t.ok(s.positives >= 15, `${s.entity}: ${s.positives}`)
})

t.test('every labelled PII and secret value is found, evasions included (recall 100%)', async (t) => {
  const fn = misses.filter((m) => m.kind === 'fn')
  t.same(fn.map(describe), [])
})

t.test('precision is at least 99% overall', async (t) => {
  const tp = scores.reduce((n, s) => n + s.tp, 0)
  const fp = scores.reduce((n, s) => n + s.fp, 0)
  t.ok(tp / (tp + fp) >= 0.99, `precision ${(tp / (tp + fp)).toFixed(4)}; false positives: ${misses.filter((m) => m.kind === 'fp').map(describe).join('; ')}`)
})

t.test('hard negatives produce no finding', async (t) => {
  const negatives = samples.filter((s) => s.labels.length === 0)
  t.ok(negatives.length >= 70)
  const fp = misses.filter((m) => m.kind === 'fp' && m.sample.labels.length === 0)
  t.same(fp.map((m) => `${m.entity}: ${m.sample.note ?? ''}`), [])
})
