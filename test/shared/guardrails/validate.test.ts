// Save-time validation (CONTRACT §9): every bad rule is named by index, id
// and field; nothing unparseable reaches the request path; never throws.
import t from 'tap'
import { validateRules } from '../../../shared/src/guardrails/validate.js'

const errorsOf = (input: unknown): string[] => {
  const r = validateRules(input)
  return r.ok ? [] : r.errors
}

t.test('accepts the flat rule shapes of CONTRACT §10', async (t) => {
  const r = validateRules([
    { id: 'kw', type: 'keyword', stage: 'input', action: 'block', keywords: ['project falcon'], match: 'word' },
    { type: 'regex', stage: 'both', action: 'mask', pattern: 'emp[0-9]{5}', flags: 'i' },
    { type: 'pii', stage: 'output', entities: { email: 'mask', credit_card: 'block' } },
    { type: 'secret', stage: 'both', entities: { '*': 'block' } },
    { type: 'llm_judge', stage: 'input', action: 'block', model: 'gpt-4.1-mini', criteria: 'no medical advice', threshold: 0.7 },
    { type: 'grounding', stage: 'output', model: 'gpt-4.1-mini', min_score: 0.6, failure_mode: 'open' },
  ])
  t.ok(r.ok)
  if (r.ok) {
    t.equal(r.rules[0]?.type, 'keyword')
    const judge = r.rules[4]
    t.equal(judge?.type === 'llm_judge' ? judge.failure_mode : '', 'closed', 'failure_mode defaults to closed')
  }
})

t.test('denies a backreference, naming the rule index and field', async (t) => {
  const errors = errorsOf([{ type: 'keyword', stage: 'input', action: 'flag', keywords: ['x'] }, { type: 'regex', stage: 'input', action: 'block', pattern: '(a)\\1' }])
  t.equal(errors.length, 1)
  t.match(errors[0], /^rules\[1\]\.pattern: unsupported by the linear-time engine: /)
})

t.test('denies lookahead and lookbehind, naming the rule id', async (t) => {
  for (const pattern of ['foo(?=bar)', '(?<!x)y', '(?<=x)y', 'a(?!b)']) {
    const errors = errorsOf([{ id: 'no-look', type: 'regex', stage: 'input', action: 'block', pattern }])
    t.match(errors[0], /^rules\[0\] \(id "no-look"\)\.pattern: unsupported by the linear-time engine/, pattern)
  }
})

t.test('denies unknown PII and secret entity names', async (t) => {
  const errors = errorsOf([
    { type: 'pii', stage: 'input', entities: { email: 'mask', passport: 'mask' } },
    { type: 'secret', stage: 'input', entities: { github: 'block' } },
  ])
  t.equal(errors.length, 2)
  t.match(errors[0], /^rules\[0\]\.entities\.passport: unknown entity "passport"/)
  t.match(errors[1], /^rules\[1\]\.entities\.github: unknown entity "github"/)
})

t.test('denies unknown fields, actions, stages and flags', async (t) => {
  const errors = errorsOf([
    { type: 'keyword', stage: 'input', action: 'block', keywords: ['a'], colour: 'red' },
    { type: 'keyword', stage: 'input', action: 'explode', keywords: ['a'] },
    { type: 'keyword', stage: 'sideways', action: 'block', keywords: ['a'] },
    { type: 'regex', stage: 'input', action: 'block', pattern: 'a', flags: 'x' },
  ])
  t.match(errors.join('\n'), /rules\[0\]/)
  t.match(errors.join('\n'), /rules\[1\]\.action/)
  t.match(errors.join('\n'), /rules\[2\]\.stage/)
  t.match(errors.join('\n'), /rules\[3\]\.flags/)
})

t.test('denies garbage input without throwing', async (t) => {
  const garbage: unknown[] = [null, undefined, 42, 'rules', {}, [null], [42], [{}], [{ type: 'nope' }], [{ type: 'regex' }], [[]], [{ type: 'keyword', stage: 'input', action: 'block', keywords: [] }]]
  for (const input of garbage) {
    const r = validateRules(input)
    t.notOk(r.ok, JSON.stringify(input) ?? 'undefined')
    if (!r.ok) t.ok(r.errors.length > 0)
  }
})

t.test('denies duplicate rule ids', async (t) => {
  const errors = errorsOf([
    { id: 'same', type: 'keyword', stage: 'input', action: 'block', keywords: ['a'] },
    { id: 'same', type: 'keyword', stage: 'input', action: 'block', keywords: ['b'] },
  ])
  t.match(errors[0], /^rules\[1\] \(id "same"\)\.id: duplicate rule id/)
})

t.test('denies a keyword made only of invisible characters', async (t) => {
  const errors = errorsOf([{ type: 'keyword', stage: 'input', action: 'block', keywords: ['ok', '\u200b\u200d'] }])
  t.match(errors[0], /^rules\[0\]\.keywords\[1\]: empty after normalisation/)
})
