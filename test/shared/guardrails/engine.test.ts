// The synchronous engine (CONTRACT §9): verdict precedence, masking with
// original offsets, findings without text, stage routing, linear time.
import t from 'tap'
import { compileGuardrails, GuardrailCompileError } from '../../../shared/src/guardrails/compile.js'
import { evaluate } from '../../../shared/src/guardrails/engine.js'
import { PII_PATTERNS } from '../../../shared/src/guardrails/detectors/pii.js'
import { SECRET_PATTERNS } from '../../../shared/src/guardrails/detectors/secret.js'
import { FAKES, seeded } from './corpus/fakes.js'
import { compileUserRegex } from '../../../shared/src/guardrails/detectors/regex.js'

const one = (rules: unknown[], name = 'Test guardrail') => compileGuardrails([{ id: 'g1', name, rules }])

t.test('denies a keyword at word boundaries only when match is word', async (t) => {
  const g = one([{ id: 'k', type: 'keyword', stage: 'input', action: 'block', keywords: ['Falcon'], match: 'word' }])
  t.equal(evaluate(g, 'Project FALCON launches', 'input').verdict, 'block')
  t.equal(evaluate(g, 'falconry is old', 'input').verdict, 'allow')
})

t.test('substring keywords match inside words', async (t) => {
  const g = one([{ type: 'keyword', stage: 'input', action: 'flag', keywords: ['falcon'], match: 'substring' }])
  t.equal(evaluate(g, 'falconry is old', 'input').verdict, 'flag')
})

t.test('denies a keyword hidden by homoglyphs, zero-width and fullwidth characters', async (t) => {
  const g = one([{ type: 'keyword', stage: 'input', action: 'block', keywords: ['password'] }])
  for (const text of ['my раsswоrd', 'my pass\u200bword', 'my ｐａｓｓｗｏｒｄ', 'my PASS\u00adWORD']) {
    const r = evaluate(g, text, 'input')
    t.equal(r.verdict, 'block', JSON.stringify(text))
    t.equal(r.findings[0]?.start, 3)
    t.equal(r.findings[0]?.end, text.length)
  }
})

t.test('one automaton serves many keywords across rules, overlaps included', async (t) => {
  const g = one([
    { id: 'a', type: 'keyword', stage: 'input', action: 'flag', keywords: ['he', 'she', 'his', 'hers'], match: 'substring' },
    { id: 'b', type: 'keyword', stage: 'input', action: 'flag', keywords: ['c++', 'héllo'], match: 'word' },
  ])
  const r = evaluate(g, 'ushers like c++ and HÉLLO', 'input')
  t.same(r.findings.map((f) => [f.rule_id, f.start, f.end]), [['a', 1, 4], ['a', 2, 6], ['a', 2, 4], ['b', 12, 15], ['b', 20, 25]])
})

t.test('mask rewrites the original text with upper-cased entity labels', async (t) => {
  const g = one([
    { type: 'pii', stage: 'input', entities: { email: 'mask' } },
    { type: 'regex', stage: 'input', action: 'mask', pattern: 'emp[0-9]{5}', entity: 'employee_id' },
    { type: 'keyword', stage: 'input', action: 'mask', keywords: ['falcon'] },
    { type: 'regex', stage: 'input', action: 'mask', pattern: 'proj-[0-9]{3}', name: 'project code' },
  ])
  const r = evaluate(g, 'Mail jane@exam\u200bple.com re EMP12345, Falcon, proj-123.', 'input')
  t.equal(r.verdict, 'mask')
  t.equal(r.masked_text, 'Mail [REDACTED:EMAIL] re [REDACTED:EMPLOYEE_ID], [REDACTED:KEYWORD], [REDACTED:PROJECT_CODE].')
})

t.test('overlapping mask spans merge into one redaction', async (t) => {
  const g = one([
    { type: 'regex', stage: 'input', action: 'mask', pattern: 'abc def', entity: 'first' },
    { type: 'regex', stage: 'input', action: 'mask', pattern: 'def ghi', entity: 'second' },
  ])
  t.equal(evaluate(g, 'x abc def ghi y', 'input').masked_text, 'x [REDACTED:FIRST] y')
})

t.test('block beats mask beats flag beats allow', async (t) => {
  const rules = (a: string, b: string) => [
    { type: 'keyword', stage: 'input', action: a, keywords: ['alpha'] },
    { type: 'keyword', stage: 'input', action: b, keywords: ['beta'] },
  ]
  t.equal(evaluate(one(rules('flag', 'block')), 'alpha beta', 'input').verdict, 'block')
  t.equal(evaluate(one(rules('flag', 'mask')), 'alpha beta', 'input').verdict, 'mask')
  t.equal(evaluate(one(rules('flag', 'flag')), 'alpha beta', 'input').verdict, 'flag')
  t.equal(evaluate(one(rules('flag', 'flag')), 'gamma', 'input').verdict, 'allow')
})

t.test('denies with guardrail_blocked metadata and never the matched text', async (t) => {
  const token = FAKES.github_token?.(seeded(7), '') ?? ''
  const g = one([{ id: 'no-secrets', type: 'secret', stage: 'both', entities: { '*': 'block' } }], 'Secrets')
  const r = evaluate(g, `deploy with ${token} now`, 'output')
  t.equal(r.verdict, 'block')
  t.same(r.blocked, { guardrail_id: 'g1', guardrail_name: 'Secrets', rule_id: 'no-secrets', stage: 'output', entity: 'github_token' })
  t.notMatch(JSON.stringify(r.findings), token)
  t.same(Object.keys(r.findings[0] ?? {}).sort(), ['action', 'end', 'entity', 'guardrail_id', 'rule_id', 'start', 'type'])
})

t.test('specific entity actions override the wildcard', async (t) => {
  const g = one([{ type: 'pii', stage: 'input', entities: { '*': 'block', email: 'mask' } }])
  t.equal(evaluate(g, 'a@example.com', 'input').verdict, 'mask')
  t.equal(evaluate(g, 'ssn 123-45-6789', 'input').verdict, 'block')
})

t.test('rules apply only to their stage', async (t) => {
  const g = one([
    { type: 'keyword', stage: 'input', action: 'block', keywords: ['incoming'] },
    { type: 'keyword', stage: 'output', action: 'block', keywords: ['outgoing'] },
  ])
  t.equal(evaluate(g, 'outgoing', 'input').verdict, 'allow')
  t.equal(evaluate(g, 'outgoing', 'output').verdict, 'block')
  t.equal(evaluate(g, 'incoming', 'output').verdict, 'allow')
})

t.test('a generic assignment holding a vendor token is reported once, as the vendor token', async (t) => {
  const token = FAKES.github_token?.(seeded(3), '') ?? ''
  const g = one([{ type: 'secret', stage: 'input', entities: { '*': 'mask' } }])
  const r = evaluate(g, `token = "${token}"`, 'input')
  t.same(r.findings.map((f) => f.entity), ['github_token'])
  t.equal(r.masked_text, 'token = "[REDACTED:GITHUB_TOKEN]"')
})

t.test('llm_judge and grounding rules are exposed for the async judge, not evaluated', async (t) => {
  const g = one([
    { id: 'j', type: 'llm_judge', stage: 'both', model: 'm', criteria: 'c' },
    { id: 'gr', type: 'grounding', stage: 'output', model: 'm', min_score: 0.4 },
  ])
  t.equal(g.asyncRules.input.length, 1)
  t.same(g.asyncRules.output.map((r) => r.rule_id), ['j', 'gr'])
  t.equal(evaluate(g, 'anything', 'output').verdict, 'allow')
})

t.test('rules without ids are named by their index', async (t) => {
  const g = one([{ type: 'keyword', stage: 'input', action: 'flag', keywords: ['x'] }, { type: 'keyword', stage: 'input', action: 'flag', keywords: ['y'] }])
  t.equal(evaluate(g, 'y', 'input').findings[0]?.rule_id, 'rules[1]')
})

t.test('denies compiling a bundle with an invalid rule, naming the guardrail', async (t) => {
  let caught: unknown
  try {
    compileGuardrails([{ id: 'bad', name: 'Bad', rules: [{ type: 'regex', stage: 'input', action: 'block', pattern: '(?=x)' }] }])
  } catch (err) {
    caught = err
  }
  t.ok(caught instanceof GuardrailCompileError)
  t.match(caught instanceof Error ? caught.message : '', /guardrail bad: rules\[0\]\.pattern/)
})

t.test('user regexes are case-insensitive over canonical text', async (t) => {
  const g = one([{ type: 'regex', stage: 'input', action: 'flag', pattern: '[A-Z]{3}-[0-9]+' }])
  t.equal(evaluate(g, 'ticket abc-42', 'input').verdict, 'flag')
})

t.test('user regex matches are found in long texts at their true offsets', async (t) => {
  const g = one([{ type: 'regex', stage: 'input', action: 'mask', pattern: '\\bemp[0-9]{5}\\b', entity: 'emp' }])
  const filler = 'lorem ipsum dolor '.repeat(2000)
  const text = `${filler}EMP12345 ${filler}emp54321 ${filler}xemp11111`
  const r = evaluate(g, text, 'input')
  t.same(r.findings.map((f) => text.slice(f.start, f.end)), ['EMP12345', 'emp54321'])
})

t.test('user regex positions agree with a plain re2js scan', async (t) => {
  const patterns = ['ticket-[a-z]{2,4}-[0-9]+', '\\bpo[0-9]{3}\\b', '(?:foo|bar)baz', 'x.{0,3}y', '[0-9]+\\.[0-9]+', 'a+b', '(?s)start.*?stop']
  const rng = seeded(99)
  const alphabet = 'abxyz fo0123456789.-tickesprbp\n'
  const text = Array.from({ length: 30_000 }, () => alphabet.charAt(Math.floor(rng() * alphabet.length))).join('') +
    ' ticket-ops-4411 po123 foobaz barbaz x12y 3.14 aaab start here stop'
  for (const pattern of patterns) {
    const g = one([{ type: 'regex', stage: 'input', action: 'flag', pattern }])
    const got = evaluate(g, text, 'input').findings.map((f) => [f.start, f.end])
    const expected: number[][] = []
    const m = compileUserRegex(pattern).matcher(text.toLowerCase())
    while (m.find()) if (m.end() > m.start()) expected.push([m.start(), Math.min(m.end(), m.start() + 4096)])
    t.same(got, expected, pattern)
  }
})

t.test('a user regex with many false starts stays linear', async (t) => {
  const g = one([{ type: 'regex', stage: 'input', action: 'flag', pattern: 'a[a-z]*!' }])
  const small = 'a'.repeat(25_000)
  const large = 'a'.repeat(100_000)
  const ratio = time(() => evaluate(g, large, 'input')) / time(() => evaluate(g, small, 'input'))
  t.ok(ratio < 10, `growth ratio ${ratio.toFixed(2)} for 4× input`)
})

t.test('an unbounded user regex finds matches up to the 4096-character cap', async (t) => {
  const g = one([{ type: 'regex', stage: 'input', action: 'mask', pattern: 'begin.*end', flags: 's' }])
  const text = `${'lorem '.repeat(3000)}begin${'x'.repeat(4000)}end${' ipsum'.repeat(3000)}`
  const f = evaluate(g, text, 'input').findings[0]
  t.equal(f?.start, 18_000)
  t.equal(f?.end, 18_000 + 4008)
})

const time = (fn: () => void): number => {
  const best: number[] = []
  fn() // warm-up: JIT and regex compilation are not the input's cost
  for (let i = 0; i < 7; i++) {
    const start = performance.now()
    fn()
    best.push(performance.now() - start)
  }
  return Math.min(...best)
}

t.test('a catastrophic user regex runs in linear time', async (t) => {
  const g = one([{ type: 'regex', stage: 'input', action: 'block', pattern: '(a+)+$' }])
  const small = `${'a'.repeat(25_000)}!`
  const large = `${'a'.repeat(100_000)}!`
  evaluate(g, small, 'input')
  const ratio = time(() => evaluate(g, large, 'input')) / time(() => evaluate(g, small, 'input'))
  // 4× the input: linear is ~4×, a backtracking engine would never return.
  t.ok(ratio < 10, `growth ratio ${ratio.toFixed(2)} for 4× input`)
})

t.test('built-in detectors scale linearly on adversarial input', async (t) => {
  const g = one([{ type: 'pii', stage: 'input', entities: { '*': 'mask' } }, { type: 'secret', stage: 'input', entities: { '*': 'mask' } }])
  const shapes = ['a.', '1 ', '1-', 'a@', 'api_key=', 'eyJ', 'sk-', ':a', '+1 ', '-----BEGIN RSA PRIVATE KEY-----', 'x://a:', 'de89']
  for (const shape of shapes) {
    const small = shape.repeat(Math.ceil(20_000 / shape.length))
    const large = shape.repeat(Math.ceil(80_000 / shape.length))
    evaluate(g, small, 'input')
    const ratio = time(() => evaluate(g, large, 'input')) / Math.max(0.05, time(() => evaluate(g, small, 'input')))
    t.ok(ratio < 10, `${JSON.stringify(shape)}: growth ratio ${ratio.toFixed(2)} for 4× input`)
  }
})

// Linear time for built-ins rests on bounded quantifiers: no `*`, `+` or `{n,}`.
t.test('built-in patterns use bounded quantifiers only', async (t) => {
  for (const re of [...PII_PATTERNS, ...SECRET_PATTERNS]) {
    const stripped = re.source.replace(/\\./g, '').replace(/\[[^\]]*\]/g, '')
    t.notMatch(stripped, /[*+]|\{\d+,\}/, re.source)
  }
})
