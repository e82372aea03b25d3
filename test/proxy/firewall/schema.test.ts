// validatePolicyInput: what the control plane answers 400 with.
import t from 'tap';
import { validateEgressInput, validatePolicyInput, validateSkillInput } from '@agentwall/shared/schemas/firewall';

const rule = (r: Record<string, unknown>) => ({ name: 'p', surfaces: ['mcp'], rules: [{ tool: 'github.*', verdict: 'deny', ...r }] });
const fields = (input: unknown): string[] => {
  const v = validatePolicyInput(input);
  return v.ok ? [] : v.errors.map((e) => e.field);
};

t.test('a valid policy gets defaults', async (t) => {
  const v = validatePolicyInput({ name: 'default', rules: [{ tool: '**', detector: 'ssrf', verdict: 'deny' }] });
  t.ok(v.ok);
  if (v.ok) t.match(v.value, { enabled: true, priority: 100, surfaces: ['mcp', 'response', 'inbound', 'egress'] });
});

t.test('errors name the field', async (t) => {
  t.same(fields(rule({ tool: 'git hub.*' })), ['rules[0].tool'], 'bad glob');
  t.same(fields(rule({ tool: 'a.***' })), ['rules[0].tool'], 'three stars');
  t.same(fields(rule({ verdict: 'explode' })), ['rules[0].verdict'], 'unknown verdict');
  t.same(fields(rule({ detector: 'virus' })), ['rules[0].detector'], 'unknown detector');
  t.same(fields(rule({ args_match: [{ path: 'a', regex: '(?<=x)y' }] })), ['rules[0].args_match[0].regex'], 'look-behind is not RE2');
  t.same(fields(rule({ args_match: [{ path: 'a', regex: 'x', contains: 'y' }] })), ['rules[0].args_match[0]'], 'two conditions');
  t.same(fields(rule({ args_match: [{ path: 'a..b', equals: 1 }] })), ['rules[0].args_match[0].path'], 'empty segment');
  t.same(fields(rule({ verdict: 'cap_cost' })), ['rules[0].params'], 'cap_cost without params');
  t.same(fields(rule({ verdict: 'cap_cost', params: { max_calls: 0, per: 'week' } })), ['rules[0].params.max_calls', 'rules[0].params.per']);
  t.same(fields(rule({ verdict: 'sanitize', params: { patterns: ['ok', '(unclosed'] } })), ['rules[0].params.patterns[1]']);
  t.same(fields({ name: 'p', surfaces: ['mcp', 'mcp'], rules: [] }), ['surfaces']);
  t.same(fields({ name: 'p', surfaces: ['smtp'], rules: [] }), ['surfaces[0]']);
  t.same(fields({ name: 'p', rules: [{ tool: '**', verdict: 'deny', detecter: 'ssrf' }] }), ['rules[0].detecter'], 'unknown keys are refused, not ignored');
});

t.test('egress settings: bad CIDR and bad host glob are named', async (t) => {
  const v = validateEgressInput({ mode: 'allowlist', hosts: ['*.github.com', 'bad host'], cidrs: ['10.0.0.0/8', '10.0.0.0/33', 'fd00::/8'] });
  t.notOk(v.ok);
  if (!v.ok) t.same(v.errors.map((e) => e.field), ['hosts[1]', 'cidrs[1]']);
  t.ok(validateEgressInput({ mode: 'denylist', hosts: [], cidrs: ['192.0.2.1'] }).ok, 'a bare address is a /32');
});

t.test('skills: mode and tool globs are checked', async (t) => {
  t.ok(validateSkillInput({ name: 'payments', mode: 'block', tools: ['stripe.*'] }).ok);
  const v = validateSkillInput({ name: 'bad name', mode: 'maybe', tools: [] });
  t.notOk(v.ok);
  if (!v.ok) t.same(v.errors.map((e) => e.field).sort(), ['mode', 'name', 'tools']);
});
