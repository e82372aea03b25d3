// Guardrail engine speed: a workspace with 50 keywords, 10 regexes, every
// PII and every secret detector, scanning a realistic 4 KB prompt and a
// 100 KB one. Targets: 4 KB p50 < 0.3 ms, 100 KB p50 < 5 ms.
// Run: npx tsx bench/guardrails.ts

import { pathToFileURL } from 'node:url'
import { compileGuardrails } from '../shared/src/guardrails/compile.js'
import { evaluate } from '../shared/src/guardrails/engine.js'

const KEYWORDS = [
  'project falcon', 'project osprey', 'codename kestrel', 'internal only', 'do not distribute', 'confidential',
  'trade secret', 'merger', 'acquisition target', 'layoffs', 'reorg plan', 'salary band', 'performance review',
  'termination', 'lawsuit', 'settlement', 'subpoena', 'whistleblower', 'insider', 'embargoed', 'earnings preview',
  'guidance cut', 'board minutes', 'term sheet', 'cap table', 'pre-release', 'zero-day', 'exploit chain',
  'red team', 'pentest report', 'vulnerability disclosure', 'root password', 'master key', 'break glass',
  'kill switch', 'backdoor', 'jailbreak', 'ignore previous instructions', 'system prompt', 'developer mode',
  'dan mode', 'prompt injection', 'exfiltrate', 'data dump', 'customer list', 'pricing sheet', 'roadmap 2026',
  'unreleased model', 'weights leak', 'patient record',
]

const REGEXES = [
  'proj-[0-9]{4}', 'emp[0-9]{5}', 'acct_[a-z0-9]{12}', '\\bcase #[0-9]{6}\\b', 'internal\\.corp\\.example\\.com',
  'ticket-[a-z]{2,4}-[0-9]+', '\\bpo[0-9]{8}\\b', 'build/[0-9a-f]{7}', 'x-internal-token: \\S+', 'hr-[0-9]{3}-[a-z]{2}',
]

export function benchGuardrails() {
  return compileGuardrails([
    {
      id: 'bench',
      name: 'Bench workspace',
      rules: [
        { id: 'kw', type: 'keyword', stage: 'both', action: 'flag', keywords: KEYWORDS, match: 'word' },
        ...REGEXES.map((pattern, i) => ({ id: `re${i}`, type: 'regex', stage: 'both', action: 'mask', pattern })),
        { id: 'pii', type: 'pii', stage: 'both', entities: { '*': 'mask' } },
        { id: 'sec', type: 'secret', stage: 'both', entities: { '*': 'block' } },
      ],
    },
  ])
}

// A prompt an agent really sends: instructions, a code excerpt, tool output
// JSON, a log tail, a little PII (an email, a phone, IPs), one keyword hit
// and one user-regex hit per copy of the sections.
const SECTIONS = [
  `You are a senior support engineer. Answer the customer's question using the ticket history and the tool results below. Keep answers short, cite the ticket numbers you used, and never promise refunds without approval from billing. If the customer asks about pricing, point them to the public pricing page.\n\n`,
  `Customer: Hi, our nightly export job has been failing since Tuesday. The error mentions a timeout talking to the reporting API. We run about 40k rows per night. Can you check what changed? You can reach me at dana.kowalski@northwind-logistics.com or +1 (415) 555-2671.\n\n`,
  `Ticket history (internal only, see ticket-ops-4411):\n- 2024-03-02: customer reported slow exports (resolved by raising the page size to 500)\n- 2024-03-11: upgraded client library from v2.3.1 to v2.4.0\n- 2024-03-12: export duration went from 4 minutes to 19 minutes\n\n`,
  "```python\ndef export_rows(client, since):\n    cursor = None\n    while True:\n        page = client.reports.list(since=since, cursor=cursor, page_size=500)\n        for row in page.items:\n            yield transform(row)\n        if not page.next_cursor:\n            break\n        cursor = page.next_cursor\n```\n\n",
  `Tool result (get_job_runs): {"job":"nightly-export","runs":[{"id":"run_8f2a","status":"failed","duration_s":1800,"error":"ReadTimeout after 30s","host":"10.20.4.17"},{"id":"run_7c1d","status":"succeeded","duration_s":1140}],"next":null}\n\n`,
  `Log tail:\n2024-03-14T02:00:01Z INFO export started rows=41233\n2024-03-14T02:19:44Z WARN slow page latency_ms=28750 page=61\n2024-03-14T02:30:01Z ERROR ReadTimeout url=https://reports.example.com/v2/reports?page_size=500 attempt=3\n\n`,
  `Notes: the v2.4.0 release changed the default retry policy to three attempts with exponential backoff starting at 10 seconds, and lowered the read timeout from 60 to 30 seconds. Large tenants with wide rows may now hit the timeout on slow pages. The fix is to pass timeout=90 or reduce page_size to 200.\n\n`,
]

export function prompt(size: number): string {
  let out = ''
  for (let i = 0; out.length < size; i++) out += SECTIONS[i % SECTIONS.length]
  return out.slice(0, size)
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0
}

export async function runGuardrailBench(): Promise<Array<{ name: string; p50_ms: number; p99_ms: number }>> {
  const compiled = benchGuardrails()
  const results: Array<{ name: string; p50_ms: number; p99_ms: number }> = []
  for (const [name, size, iterations] of [['guardrails 4 KB', 4096, 5000], ['guardrails 100 KB', 100 * 1024, 400]] as const) {
    // Vary the text slightly per iteration so nothing is cached by identity.
    const texts = Array.from({ length: 16 }, (_, i) => prompt(size - i) + ' '.repeat(i))
    for (let i = 0; i < Math.max(200, iterations / 5); i++) evaluate(compiled, texts[i % texts.length] ?? '', 'input')
    const times: number[] = []
    for (let i = 0; i < iterations; i++) {
      const text = texts[i % texts.length] ?? ''
      const start = performance.now()
      evaluate(compiled, text, 'input')
      times.push(performance.now() - start)
    }
    times.sort((a, b) => a - b)
    results.push({ name, p50_ms: percentile(times, 0.5), p99_ms: percentile(times, 0.99) })
  }
  return results
}

async function main(): Promise<void> {
  const compiled = benchGuardrails()
  const sample = evaluate(compiled, prompt(4096), 'input')
  console.log(`4 KB prompt: verdict ${sample.verdict}, ${sample.findings.length} findings (${[...new Set(sample.findings.map((f) => f.entity))].join(', ')})`)
  console.log('| case | p50 (ms) | p99 (ms) |\n|---|---|---|')
  for (const r of await runGuardrailBench()) console.log(`| ${r.name} | ${r.p50_ms.toFixed(3)} | ${r.p99_ms.toFixed(3)} |`)
}

// Runnable directly, importable by bench/run.ts (no top-level await, so either loader works).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err)
    process.exitCode = 1
  })
}
