import t from 'tap';
import { readFileSync } from 'node:fs';
import { AppError, ERROR_CODES, toAnthropicError, toApiError, toGoogleError, toOpenAIError } from '@agentwall/shared/errors';

// STYLE §3: the registry and the README's error table agree both ways.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const table = new Map<string, number>();
for (const m of readme.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)) table.set(m[1]!, Number(m[2]));

t.test('every registered code is in the README error table with its status', async (t) => {
  for (const [code, { status }] of Object.entries(ERROR_CODES)) t.equal(table.get(code), status, code);
});

t.test('every code in the README error table is registered', async (t) => {
  t.ok(table.size > 0, 'table found');
  for (const code of table.keys()) t.ok(Object.hasOwn(ERROR_CODES, code), code);
});

t.test('the codes of CONTRACT section 8 are all registered', async (t) => {
  for (const code of ['invalid_request', 'guardrail_blocked', 'firewall_blocked', 'firewall_approval_pending', 'not_implemented', 'unauthorized', 'invalid_api_key', 'invalid_signature', 'forbidden', 'not_found', 'conflict', 'request_too_large', 'insufficient_quota', 'rate_limit_exceeded', 'asset_upload_limit_exceeded', 'upstream_error', 'upstream_timeout', 'internal_error']) {
    t.ok(Object.hasOwn(ERROR_CODES, code), code);
  }
});

const blocked = new AppError('firewall_blocked', 'firewall deny: rm -rf', { metadata: { reason_code: 'destructive_command', risk_score: 0.9 } });

t.test('openai and api envelopes carry type, code, message, metadata', async (t) => {
  t.same(toOpenAIError(blocked), { status: 400, headers: {}, body: { error: { type: 'openai_error', code: 'firewall_blocked', message: 'firewall deny: rm -rf', metadata: { reason_code: 'destructive_command', risk_score: 0.9 } } } });
  t.same(toApiError(new AppError('not_found', 'x')).body, { error: { type: 'api_error', code: 'not_found', message: 'x' } });
});

t.test('anthropic shape wraps the code in a type:error body', async (t) => {
  const r = toAnthropicError(blocked);
  t.same(r.body, { type: 'error', error: { type: 'invalid_request_error', code: 'firewall_blocked', message: 'firewall deny: rm -rf', metadata: { reason_code: 'destructive_command', risk_score: 0.9 } } });
  t.equal((toAnthropicError(new AppError('invalid_api_key', 'k')).body as { error: { type: string } }).error.type, 'authentication_error');
});

t.test('google shape carries the code as ErrorInfo reason', async (t) => {
  const r = toGoogleError(blocked);
  t.equal(r.status, 400);
  t.match(r.body, { error: { code: 400, status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'firewall_blocked', domain: 'agentwall', metadata: { reason_code: 'destructive_command', risk_score: '0.9' } }] } });
});

t.test('a foreign error becomes internal_error and hides its message', async (t) => {
  const r = toApiError(new Error('password=hunter2 at db'));
  t.equal(r.status, 500);
  t.notMatch(JSON.stringify(r.body), /hunter2/);
  t.equal((r.body as { error: { code: string } }).error.code, 'internal_error');
});

t.test('headers of an error (Retry-After, Allow) travel with it', async (t) => {
  const r = toOpenAIError(new AppError('rate_limit_exceeded', 'slow down', { headers: { 'retry-after': '3' } }));
  t.same(r.headers, { 'retry-after': '3' });
  t.equal(r.status, 429);
});
