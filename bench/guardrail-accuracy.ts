// Detector accuracy over the labelled corpora, evasions included; prints a
// markdown table of precision and recall per entity.
// Run: npx tsx bench/guardrail-accuracy.ts

import { pathToFileURL } from 'node:url'
import { loadCorpus, scoreCorpus, type EntityScore } from '../test/shared/guardrails/corpus/corpus.js'

export function guardrailAccuracy(): { scores: EntityScore[]; samples: number; negatives: number } {
  const samples = loadCorpus()
  return { scores: scoreCorpus(samples).scores, samples: samples.length, negatives: samples.filter((s) => s.labels.length === 0).length }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`

export function accuracyTable(scores: readonly EntityScore[]): string {
  const rows = scores.map((s) => `| ${s.entity} | ${s.positives} | ${s.tp} | ${s.fn} | ${s.fp} | ${pct(s.precision)} | ${pct(s.recall)} |`)
  const tp = scores.reduce((n, s) => n + s.tp, 0)
  const fp = scores.reduce((n, s) => n + s.fp, 0)
  const pos = scores.reduce((n, s) => n + s.positives, 0)
  rows.push(`| **all** | ${pos} | ${tp} | ${pos - tp} | ${fp} | ${pct(tp / Math.max(1, tp + fp))} | ${pct(tp / Math.max(1, pos))} |`)
  return ['| entity | labelled | found | missed | false positives | precision | recall |', '|---|---|---|---|---|---|---|', ...rows].join('\n')
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { scores, samples, negatives } = guardrailAccuracy()
  console.log(`${samples} samples (${negatives} hard negatives); each positive also as zero-width, fullwidth and homoglyph variants\n`)
  console.log(accuracyTable(scores))
}
