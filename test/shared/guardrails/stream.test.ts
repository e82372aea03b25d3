// Streaming output (CONTRACT §9 Streams): a match split across chunks is
// still masked or blocked, and nothing matched ever reaches the agent.
import t from 'tap'
import { compileGuardrails } from '../../../shared/src/guardrails/compile.js'
import { evaluate } from '../../../shared/src/guardrails/engine.js'
import { createStreamScanner, type StreamStep } from '../../../shared/src/guardrails/stream.js'
import { FAKES, seeded } from './corpus/fakes.js'

const compiled = (action: 'mask' | 'block') =>
  compileGuardrails([
    {
      id: 'g1',
      name: 'Output',
      rules: [
        { id: 'pii', type: 'pii', stage: 'output', entities: { '*': action } },
        { id: 'sec', type: 'secret', stage: 'output', entities: { '*': action } },
      ],
    },
  ])

function stream(g: ReturnType<typeof compiled>, chunks: readonly string[]): { out: string; steps: StreamStep[] } {
  const s = createStreamScanner(g, 'output')
  const steps = chunks.map((c) => s.push(c))
  steps.push(s.end())
  return { out: steps.map((x) => x.emit).join(''), steps }
}

/** Every substring of length ≥ 4 of the secret: none may appear in clear. */
function leaks(out: string, secret: string): string | null {
  for (let i = 0; i + 4 <= secret.length; i++) if (out.includes(secret.slice(i, i + 4))) return secret.slice(i, i + 4)
  return null
}

const canary = FAKES.aws_access_key_id?.(seeded(11), '') ?? ''
// A small hold-back (one 20-character entity) so that the emit point sweeps
// across the secret as the split moves; long filler on both sides.
const narrow = compileGuardrails([{ id: 'g1', name: 'Output', rules: [{ id: 'aws', type: 'secret', stage: 'output', entities: { aws_access_key_id: 'mask' } }] }])
const prefix = 'Here is the deployment summary, line by line. '.repeat(5) + 'The key is '
const suffix = ' and it rotates weekly. Nothing else to report today.'.repeat(5)
const text = prefix + canary + suffix
const holdBack = createStreamScanner(narrow, 'output').holdBack

t.test('mask rewrites a secret split across two chunks at every position', async (t) => {
  const expected = evaluate(narrow, text, 'output').masked_text
  t.match(expected, '[REDACTED:AWS_ACCESS_KEY_ID]')
  for (let i = 1; i < text.length; i++) {
    const { out } = stream(narrow, [text.slice(0, i), text.slice(i)])
    if (leaks(out, canary) !== null || out !== expected) t.fail(`split at ${i}: ${out}`)
  }
  t.pass(`${text.length - 1} splits, none leaked the canary`)
})

t.test('mask rewrites a secret split across three chunks at every pair of positions', async (t) => {
  const expected = evaluate(narrow, text, 'output').masked_text
  const lo = prefix.length - holdBack - 8
  const hi = prefix.length + canary.length + holdBack + 8
  let runs = 0
  for (let i = lo; i < hi; i++) {
    for (let j = i + 1; j <= hi; j++) {
      const { out } = stream(narrow, [text.slice(0, i), text.slice(i, j), text.slice(j)])
      runs++
      if (leaks(out, canary) !== null || out !== expected) t.fail(`split at ${i},${j}: ${out}`)
    }
  }
  t.pass(`${runs} splits, none leaked the canary`)
})

t.test('denies a secret split at every position of a block stream and emits none of it', async (t) => {
  const blocking = compileGuardrails([{ id: 'g1', name: 'Output', rules: [{ id: 'aws', type: 'secret', stage: 'output', entities: { aws_access_key_id: 'block' } }] }])
  for (let i = 1; i < text.length; i++) {
    const { out, steps } = stream(blocking, [text.slice(0, i), text.slice(i)])
    if (leaks(out, canary) !== null || !steps.some((s) => s.blocked !== undefined)) t.fail(`split at ${i}: ${out}`)
  }
  t.pass('every split blocked before the canary')
})

t.test('mask rewrites an email split across chunks, one character at a time', async (t) => {
  const g = compiled('mask')
  const body = 'Contact jane.doe@example.com for access.'
  const { out } = stream(g, [...body])
  t.equal(out, 'Contact [REDACTED:EMAIL] for access.')
})

t.test('denies a secret mid-stream and emits nothing of it', async (t) => {
  const g = compiled('block')
  const filler = 'All systems nominal. '.repeat(400)
  const chunks = (filler + text + filler).match(/.{1,7}/gs) ?? []
  const { out, steps } = stream(g, chunks)
  const blocked = steps.find((s) => s.blocked !== undefined)?.blocked
  t.same(blocked, { guardrail_id: 'g1', guardrail_name: 'Output', rule_id: 'sec', stage: 'output', entity: 'aws_access_key_id' })
  t.equal(leaks(out, canary), null)
  t.ok((filler + text).startsWith(out), 'only text before the secret was emitted')
  t.ok(out.length > 0, 'text well before the secret was released')
  t.equal(steps.filter((s) => s.blocked !== undefined).length, 1, 'blocked once, then silent')
})

t.test('denies a secret padded with zero-width characters beyond the hold-back', async (t) => {
  const g = compiled('mask')
  const padded = [...canary].join('\u200b'.repeat(300))
  const body = `key ${padded} end`
  const chunks = body.match(/.{1,50}/gs) ?? []
  const { out } = stream(g, chunks)
  t.equal(out, 'key [REDACTED:AWS_ACCESS_KEY_ID] end')
})

t.test('a long stream equals the non-streaming masked text', async (t) => {
  const g = compiled('mask')
  const rng = seeded(5)
  const pieces: string[] = []
  for (let i = 0; i < 60; i++) {
    pieces.push('Lorem ipsum dolor sit amet, consectetur adipiscing elit. ')
    if (i % 7 === 0) pieces.push(`token=${FAKES.github_token?.(rng, '') ?? ''} `)
    if (i % 11 === 0) pieces.push('mail ops@example.com or call +44 20 7946 0958. ')
    if (i % 13 === 0) pieces.push(`${FAKES.private_key?.(rng, 'rsa') ?? ''}\n`)
  }
  const body = pieces.join('')
  const expected = evaluate(g, body, 'output').masked_text
  for (const size of [1, 3, 17, 256, 5000]) {
    const chunks = body.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? []
    t.equal(stream(g, chunks).out, expected, `chunks of ${size}`)
  }
})

t.test('a stage without rules streams through untouched', async (t) => {
  const g = compileGuardrails([{ id: 'g', name: 'n', rules: [{ type: 'keyword', stage: 'input', action: 'block', keywords: ['x'] }] }])
  const s = createStreamScanner(g, 'output')
  t.equal(s.push('x marks').emit, 'x marks')
  t.equal(s.end().emit, '')
})

t.test('the hold-back is the longest match of the stage plus a look-around margin', async (t) => {
  const g = compileGuardrails([{ id: 'g', name: 'n', rules: [{ type: 'keyword', stage: 'output', action: 'mask', keywords: ['abcdef', 'xy'] }] }])
  t.equal(createStreamScanner(g, 'output').holdBack, 6 + 16)
})
