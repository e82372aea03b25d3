// Verdict engine semantics (CONTRACT §6): ordering, surfaces, matching,
// verdicts, and failing closed.
import t from 'tap';
import { compileFirewall, createFirewallState, evaluateCall, type FirewallCall } from '../../../proxy/src/firewall/engine.js';

type Rule = Record<string, unknown>;
const policy = (id: number, rules: Rule[], extra: Record<string, unknown> = {}) => ({
  id, name: `p${id}`, enabled: true, priority: 100, surfaces: ['mcp', 'response', 'inbound', 'egress'], rules, ...extra,
});
const snap = (policies: unknown[], rest: Record<string, unknown> = {}) => ({ policies, egress: null, skills: [], ...rest });
const call = (tool_name: string, args: unknown = {}, extra: Partial<FirewallCall> = {}): FirewallCall => ({ surface: 'mcp', tool_name, arguments: args, ...extra });

t.test('no policies: allow', async (t) => {
  const v = evaluateCall(compileFirewall(snap([])), call('github.create_issue'));
  t.match(v, { verdict: 'allow', risk_score: 0, tool_name: 'github.create_issue' });
  t.equal(v.reason_code, undefined);
});

t.test('policies apply by ascending priority, whatever their order in the snapshot', async (t) => {
  const fw = compileFirewall(snap([
    policy(1, [{ id: 1, tool: '**', verdict: 'allow' }], { priority: 200 }),
    policy(2, [{ id: 2, tool: 'github.*', verdict: 'deny' }], { priority: 10 }),
  ]));
  t.match(evaluateCall(fw, call('github.delete_repo')), { verdict: 'deny', reason_code: 'rule_match', policy_id: 2, rule_id: 2 });
  t.match(evaluateCall(fw, call('slack.post')), { verdict: 'allow', policy_id: 1, rule_id: 1 });
});

t.test('the first matching rule within a policy stands', async (t) => {
  const fw = compileFirewall(snap([policy(1, [
    { id: 1, tool: 'fs.read_*', verdict: 'audit' },
    { id: 2, tool: 'fs.*', verdict: 'deny' },
  ])]));
  t.match(evaluateCall(fw, call('fs.read_file')), { verdict: 'audit', rule_id: 1 });
  t.match(evaluateCall(fw, call('fs.write_file')), { verdict: 'deny', rule_id: 2 });
});

t.test('disabled policies and policies without the surface are skipped', async (t) => {
  const fw = compileFirewall(snap([
    policy(1, [{ id: 1, tool: '**', verdict: 'deny' }], { enabled: false }),
    policy(2, [{ id: 2, tool: '**', verdict: 'pending_approval' }], { surfaces: ['response'] }),
  ]));
  t.equal(evaluateCall(fw, call('x.y')).verdict, 'allow');
  t.match(evaluateCall(fw, call('x.y', {}, { surface: 'response' })), { verdict: 'pending_approval', rule_id: 2 });
});

t.test('globs: * stays within a segment, ** crosses, ? is one character, case folds', async (t) => {
  const fw = compileFirewall(snap([policy(1, [
    { id: 1, tool: 'gh.issue_?', verdict: 'audit' },
    { id: 2, tool: 'gh.*', verdict: 'deny' },
    { id: 3, tool: 'corp.**', verdict: 'pending_approval' },
  ])]));
  t.equal(evaluateCall(fw, call('gh.issue_1')).verdict, 'audit');
  t.equal(evaluateCall(fw, call('GH.Create')).verdict, 'deny');
  t.equal(evaluateCall(fw, call('gh.a.b')).verdict, 'allow', '* does not cross a dot');
  t.equal(evaluateCall(fw, call('corp.a.b.c')).verdict, 'pending_approval');
});

t.test('args_match: every matcher must hold; paths take * segments; regex is RE2', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{
    id: 1, tool: 'db.query', verdict: 'deny',
    args_match: [{ path: 'options.*.mode', equals: 'write' }, { path: 'sql', regex: '(?i)^\\s*insert' }],
  }, {
    id: 2, tool: 'db.query', verdict: 'audit', args_match: [{ path: 'tags.1', contains: 'prod' }],
  }])]));
  t.equal(evaluateCall(fw, call('db.query', { sql: 'INSERT INTO t VALUES (1)', options: { a: { mode: 'write' } } })).verdict, 'deny');
  t.equal(evaluateCall(fw, call('db.query', { sql: 'INSERT INTO t VALUES (1)', options: { a: { mode: 'read' } } })).verdict, 'allow');
  t.equal(evaluateCall(fw, call('db.query', { sql: 'select 1', tags: ['x', 'eu-prod-1'] })).verdict, 'audit');
  t.equal(evaluateCall(fw, call('db.query', { sql: 'select 1', tags: { nested: 'prod' } })).verdict, 'allow', 'objects at a path never match');
});

t.test('a rule with a detector matches only when the detector fires', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: 'shell.*', detector: 'destructive_command', verdict: 'pending_approval' }])]));
  t.match(evaluateCall(fw, call('shell.exec', { cmd: 'rm -rf /' })), { verdict: 'pending_approval', reason_code: 'destructive_command' });
  t.equal(evaluateCall(fw, call('shell.exec', { cmd: 'ls -la' })).verdict, 'allow');
});

t.test('no match: allow, with the risk and factors of detectors that fired', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: 'other.*', verdict: 'deny' }])]));
  const v = evaluateCall(fw, call('shell.exec', { cmd: 'rm -rf /' }));
  t.equal(v.verdict, 'allow');
  t.ok(v.risk_score > 0.9);
  t.ok(v.factors.includes('rm_recursive_system_path'));
});

t.test('sanitize redacts every match in nested string values and keeps keys', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: '**', verdict: 'sanitize', params: { patterns: ['sk-[A-Za-z0-9]{8,}', '\\d{3}-\\d{2}-\\d{4}'] } }])]));
  const args = { note: 'key sk-abcdefgh123 and sk-zzzzzzzzz', deep: [{ ssn: '123-45-6789' }, 7, null], 'sk-keyname1234': 'x' };
  const v = evaluateCall(fw, call('mail.send', args));
  t.equal(v.verdict, 'sanitize');
  t.same(v.sanitized_arguments, { note: 'key [REDACTED] and [REDACTED]', deep: [{ ssn: '[REDACTED]' }, 7, null], 'sk-keyname1234': 'x' });
  t.equal(args.note, 'key sk-abcdefgh123 and sk-zzzzzzzzz', 'the input is not modified');
});

t.test('sanitize with nothing to redact allows', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: '**', verdict: 'sanitize', params: { patterns: ['secret'] } }])]));
  t.match(evaluateCall(fw, call('a.b', { x: 'public' })), { verdict: 'allow', rule_id: 1 });
});

t.test('denies sanitize on the inbound surface (sanitize_escalated)', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: '**', verdict: 'sanitize', params: { patterns: ['secret'] } }])]));
  const v = evaluateCall(fw, call('a.b', { x: 'my secret' }, { surface: 'inbound' }));
  t.match(v, { verdict: 'deny', reason_code: 'sanitize_escalated' });
  t.equal(v.sanitized_arguments, undefined);
});

t.test('sanitize keeps string arguments as a JSON string', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: '**', verdict: 'sanitize', params: { patterns: ['secret'] } }])]));
  const v = evaluateCall(fw, call('fn', '{"x":"a secret"}', { surface: 'response' }));
  t.equal(v.sanitized_arguments, '{"x":"a [REDACTED]"}');
});

t.test('cap_cost allows within the cap and denies beyond it', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: 'search.*', verdict: 'cap_cost', params: { max_calls: 2, per: 'conversation' } }])]));
  const state = createFirewallState();
  const c = call('search.web', {}, { conversation_id: 'c1' });
  t.match(evaluateCall(fw, c, state), { verdict: 'allow', rule_id: 1 });
  t.match(evaluateCall(fw, c, state), { verdict: 'allow' });
  const v = evaluateCall(fw, c, state);
  t.match(v, { verdict: 'deny', reason_code: 'cost_cap_exceeded', policy_id: 1, rule_id: 1 });
  t.ok(v.factors.some((f) => f.startsWith('cost_cap:2/2')));
  t.equal(evaluateCall(fw, call('search.web', {}, { conversation_id: 'c2' }), state).verdict, 'allow', 'another conversation has its own count');
});

t.test('denies cap_cost when no counter state is given', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 1, tool: '**', verdict: 'cap_cost', params: { max_calls: 5, per: 'hour' } }])]));
  t.match(evaluateCall(fw, call('a.b')), { verdict: 'deny', reason_code: 'cost_cap_exceeded' });
});

t.test('skills: block mode denies, audit mode audits, also without a rule', async (t) => {
  const skills = [
    { name: 'payments', mode: 'block', tools: ['stripe.*'] },
    { name: 'email', mode: 'audit', tools: ['gmail.send*'] },
    { name: 'docs', mode: 'allow', tools: ['**'] },
  ];
  const fw = compileFirewall(snap([], { skills }));
  t.match(evaluateCall(fw, call('stripe.refund')), { verdict: 'deny', reason_code: 'skill_blocked', factors: ['skill_blocked:payments'] });
  t.match(evaluateCall(fw, call('gmail.send_message')), { verdict: 'audit', factors: ['skill_audit:email'] });
  t.equal(evaluateCall(fw, call('notion.read')).verdict, 'allow');
  const ruled = compileFirewall(snap([policy(1, [{ id: 9, tool: '**', detector: 'skill', verdict: 'pending_approval' }])], { skills }));
  t.match(evaluateCall(ruled, call('stripe.refund')), { verdict: 'pending_approval', reason_code: 'skill_blocked', rule_id: 9 });
});

t.test('egress surface: allowlist denies unlisted CONNECT hosts', async (t) => {
  const fw = compileFirewall(snap([], { egress: { mode: 'allowlist', hosts: ['*.github.com', 'registry.npmjs.org'], cidrs: ['140.82.112.0/20'] } }));
  const connect = (host: string) => evaluateCall(fw, { surface: 'egress', tool_name: host, arguments: { host, port: 443 } });
  t.equal(connect('api.github.com').verdict, 'allow');
  t.equal(connect('140.82.112.3').verdict, 'allow');
  t.match(connect('evil.example'), { verdict: 'deny', reason_code: 'egress_denied' });
  t.equal(evaluateCall(fw, call('fetch.get', { url: 'https://evil.example' })).verdict, 'allow', 'other surfaces need a rule with detector egress');
});

t.test('denies an invalid snapshot instead of compiling an allow-all', async (t) => {
  const fw = compileFirewall({ policies: [{ id: 1, name: 'x', rules: [{ id: 1, tool: '**', verdict: 'explode' }] }] });
  t.equal(fw.ok, false);
  t.match(fw.errors, [{ field: 'policies[0].rules[0].verdict' }]);
  t.match(evaluateCall(fw, call('a.b')), { verdict: 'deny', factors: ['evaluation_error:invalid_snapshot'] });
  t.equal(evaluateCall(compileFirewall(null), call('a.b')).verdict, 'deny');
});

t.test('denies cyclic arguments with the matching rule named', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 4, tool: 'shell.*', detector: 'destructive_command', verdict: 'deny' }])]));
  const a: Record<string, unknown> = {};
  a.loop = [a];
  t.match(evaluateCall(fw, call('shell.exec', a)), { verdict: 'deny', reason_code: 'destructive_command', rule_id: 4, factors: ['evaluation_error:cyclic'] });
});

t.test('denies arguments nested deeper than 64', async (t) => {
  let deep: unknown = 'x';
  for (let i = 0; i < 70; i++) deep = { d: deep };
  t.match(evaluateCall(compileFirewall(snap([])), call('a.b', deep)), { verdict: 'deny', factors: ['evaluation_error:too_deep'] });
  let json = '"x"';
  for (let i = 0; i < 70; i++) json = `{"d":${json}}`;
  t.match(evaluateCall(compileFirewall(snap([])), call('a.b', { s: json })), { verdict: 'deny', factors: ['evaluation_error:too_deep'] }, 'depth counts JSON inside strings');
});

t.test('denies oversized arguments', async (t) => {
  const fw = compileFirewall(snap([]), { limits: { maxChars: 1000 } });
  t.match(evaluateCall(fw, call('a.b', { s: 'x'.repeat(2000) })), { verdict: 'deny', factors: ['evaluation_error:too_large'] });
});

t.test('denies non-JSON values: functions, BigInt, symbols, class instances', async (t) => {
  const fw = compileFirewall(snap([]));
  for (const bad of [{ f: () => 1 }, { n: 10n }, { s: Symbol('x') }, { d: new Date(0) }, { m: new Map() }]) {
    t.match(evaluateCall(fw, call('a.b', bad)), { verdict: 'deny', factors: ['evaluation_error:unsupported_type'] });
  }
});

t.test('denies a malformed call (unknown surface, missing tool name)', async (t) => {
  const fw = compileFirewall(snap([]));
  t.equal(evaluateCall(fw, { surface: 'nope', tool_name: 'a', arguments: {} } as unknown as FirewallCall).verdict, 'deny');
  t.equal(evaluateCall(fw, { surface: 'mcp', arguments: {} } as unknown as FirewallCall).verdict, 'deny');
});

t.test('denies when a detector throws (getter that throws)', async (t) => {
  const fw = compileFirewall(snap([policy(1, [{ id: 3, tool: '**', detector: 'ssrf', verdict: 'deny' }])]));
  const args = { get url(): string { throw new Error('boom'); } };
  const v = evaluateCall(fw, call('a.b', args));
  t.equal(v.verdict, 'deny');
  t.ok(v.factors[0]?.startsWith('evaluation_error'));
});

t.test('undefined values are absent, as in JSON', async (t) => {
  t.equal(evaluateCall(compileFirewall(snap([])), call('a.b', { x: undefined })).verdict, 'allow');
});
