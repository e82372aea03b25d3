// llm_judge and grounding (CONTRACT §9) against a fake OpenAI-compatible
// upstream speaking the real wire format.
import t from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { compileGuardrails } from '../../../shared/src/guardrails/compile.js'
import type { T } from '../../helpers/tap.js'
import { createJudge, createOpenAICompatibleComplete } from '../../../shared/src/guardrails/judge.js'

type Reply = { kind: 'score'; score: number } | { kind: 'hang' } | { kind: 'garbage' } | { kind: 'http'; status: number }

async function fakeUpstream(t: T, reply: () => Reply) {
  const seen: unknown[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      seen.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) as unknown })
      const r = reply()
      if (r.kind === 'hang') return // never answers
      if (r.kind === 'http') {
        res.writeHead(r.status, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}')
        return
      }
      const content = r.kind === 'garbage' ? 'I think it is fine' : JSON.stringify({ score: r.score, reason: 'because' })
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1700000000,
          model: 'judge-mini',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const { port } = server.address() as AddressInfo
  return { base_url: `http://127.0.0.1:${port}`, seen }
}

const rules = (failure_mode: 'closed' | 'open') =>
  compileGuardrails([
    {
      id: 'g1',
      name: 'Judge',
      rules: [
        { id: 'medical', type: 'llm_judge', stage: 'input', model: 'judge-mini', criteria: 'gives medical advice', threshold: 0.7, failure_mode },
        { id: 'grounded', type: 'grounding', stage: 'output', model: 'judge-mini', min_score: 0.6, failure_mode },
      ],
    },
  ]).asyncRules

t.test('denies text the judge scores at or above the threshold, with a usage line', async (t) => {
  const up = await fakeUpstream(t, () => ({ kind: 'score', score: 0.9 }))
  const judge = createJudge({ complete: createOpenAICompatibleComplete({ base_url: up.base_url, api_key: 'k-test' }), timeoutMs: 2000 })
  const r = await judge.runJudgeRules(rules('closed').input, 'take two of these pills', { stage: 'input' })
  t.equal(r.verdict, 'block')
  t.same(r.blocked, { guardrail_id: 'g1', guardrail_name: 'Judge', rule_id: 'medical', stage: 'input', entity: 'llm_judge' })
  t.same(r.usage, [{ kind: 'judge', model: 'judge-mini', guardrail_id: 'g1', rule_id: 'medical', prompt_tokens: 120, completion_tokens: 9 }])
  const sent = up.seen[0] as { url: string; auth: string; body: { model: string; response_format: unknown; messages: Array<{ content: string }> } }
  t.equal(sent.url, '/v1/chat/completions')
  t.equal(sent.auth, 'Bearer k-test')
  t.equal(sent.body.model, 'judge-mini')
  t.same(sent.body.response_format, { type: 'json_object' })
  t.match(sent.body.messages[1]?.content, 'gives medical advice')
})

t.test('allows text the judge scores below the threshold', async (t) => {
  const up = await fakeUpstream(t, () => ({ kind: 'score', score: 0.2 }))
  const judge = createJudge({ complete: createOpenAICompatibleComplete({ base_url: up.base_url }), timeoutMs: 2000 })
  const r = await judge.runJudgeRules(rules('closed').input, 'what is the capital of France', { stage: 'input' })
  t.equal(r.verdict, 'allow')
  t.equal(r.findings.length, 0)
  t.equal(r.usage.length, 1)
})

t.test('denies an answer the grounding judge scores below min_score, sending the sources', async (t) => {
  const up = await fakeUpstream(t, () => ({ kind: 'score', score: 0.3 }))
  const judge = createJudge({ complete: createOpenAICompatibleComplete({ base_url: up.base_url }), timeoutMs: 2000 })
  const r = await judge.runJudgeRules(rules('closed').output, 'The invoice total is $900.', { stage: 'output', sources: ['Invoice total: $450'] })
  t.equal(r.verdict, 'block')
  t.equal(r.findings[0]?.entity, 'grounding')
  const sent = up.seen[0] as { body: { messages: Array<{ content: string }> } }
  t.match(sent.body.messages[1]?.content, 'Invoice total: $450')
})

t.test('denies on a hanging judge when failure_mode is closed', async (t) => {
  const up = await fakeUpstream(t, () => ({ kind: 'hang' }))
  const judge = createJudge({ complete: createOpenAICompatibleComplete({ base_url: up.base_url }), timeoutMs: 150 })
  const started = Date.now()
  const r = await judge.runJudgeRules(rules('closed').input, 'anything', { stage: 'input' })
  t.ok(Date.now() - started < 2000, 'the timeout bounds the wait')
  t.equal(r.verdict, 'block')
  t.equal(r.findings[0]?.entity, 'judge_unavailable')
  t.same(r.usage, [])
})

t.test('a hanging judge with failure_mode open lets the text through with a flag', async (t) => {
  const up = await fakeUpstream(t, () => ({ kind: 'hang' }))
  const judge = createJudge({ complete: createOpenAICompatibleComplete({ base_url: up.base_url }), timeoutMs: 150 })
  const r = await judge.runJudgeRules(rules('open').input, 'anything', { stage: 'input' })
  t.equal(r.verdict, 'flag')
  t.equal(r.findings[0]?.action, 'flag')
  t.equal(r.blocked, undefined)
})

t.test('denies on an upstream error or an unparseable answer when closed', async (t) => {
  for (const reply of [{ kind: 'http', status: 500 }, { kind: 'garbage' }] as const) {
    const up = await fakeUpstream(t, () => reply)
    const judge = createJudge({ complete: createOpenAICompatibleComplete({ base_url: up.base_url }), timeoutMs: 2000 })
    const r = await judge.runJudgeRules(rules('closed').input, 'x', { stage: 'input' })
    t.equal(r.verdict, 'block', reply.kind)
  }
})

t.test('a complete function that ignores its abort signal is still cut off by the timeout', async (t) => {
  const judge = createJudge({ complete: () => new Promise(() => undefined), timeoutMs: 50 })
  const r = await judge.runJudgeRules(rules('closed').input, 'x', { stage: 'input' })
  t.equal(r.verdict, 'block')
})
