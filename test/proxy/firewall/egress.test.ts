import t from 'tap';
import { walkArguments } from '../../../proxy/src/firewall/args.js';
import { compileEgress, detectEgress, egressAllowsAddress } from '../../../proxy/src/firewall/detectors/egress.js';
import { compileFirewall, evaluateCall } from '../../../proxy/src/firewall/engine.js';

const strings = (args: unknown) => {
  const w = walkArguments(args);
  if (!w.ok) throw new Error(w.error);
  return w.strings;
};
const allow = compileEgress({ mode: 'allowlist', hosts: ['*.github.com', 'pypi.org', '**.googleapis.com'], cidrs: ['10.20.0.0/16', '2001:db8::/32'] });
const deny = compileEgress({ mode: 'denylist', hosts: ['*.pastebin.com', 'transfer.sh'], cidrs: ['203.0.113.0/24'] });

t.test('allowlist: listed hosts pass, every unlisted host fires', async (t) => {
  t.notOk(detectEgress(allow, strings({ url: 'https://api.github.com/repos' })).fired);
  t.notOk(detectEgress(allow, strings({ url: 'https://storage.eu.googleapis.com/b' })).fired);
  t.notOk(detectEgress(allow, strings({ text: 'no urls at all' })).fired, 'nothing to check');
  t.match(detectEgress(allow, strings({ a: 'https://pypi.org/simple', b: 'https://evil.example/x' })), { fired: true, factors: ['egress_unlisted:evil.example'] });
});

t.test('allowlist: IP literals in any spelling are checked against CIDRs', async (t) => {
  t.notOk(detectEgress(allow, strings({ url: 'http://10.20.3.4/' })).fired);
  t.notOk(detectEgress(allow, strings({ url: 'http://0xa.20.3.4/' })).fired);
  t.notOk(detectEgress(allow, strings({ url: 'http://[2001:db8::5]/' })).fired);
  t.ok(detectEgress(allow, strings({ url: 'http://10.21.0.1/' })).fired);
});

t.test('denies hosts a parser trick would reach (every reading is checked)', async (t) => {
  t.ok(detectEgress(allow, strings({ url: 'https://api.github.com\\@evil.example/' })).fired);
  t.ok(detectEgress(allow, strings({ url: 'https://api.github.com.evil.example/' })).fired);
});

t.test('denylist: listed hosts and CIDRs fire, others pass', async (t) => {
  t.ok(detectEgress(deny, strings({ url: 'https://www.pastebin.com/raw/1' })).fired);
  t.ok(detectEgress(deny, strings({ host: 'TRANSFER.SH.' })).fired, 'case and trailing dot folded');
  t.ok(detectEgress(deny, strings({ url: 'http://203.0.113.9/' })).fired);
  t.notOk(detectEgress(deny, strings({ url: 'https://github.com' })).fired);
});

t.test('CONNECT host on the egress surface, with port and IPv6 brackets', async (t) => {
  t.notOk(detectEgress(allow, [], 'api.github.com:443').fired);
  t.notOk(detectEgress(allow, [], '[2001:db8::1]:443').fired);
  t.ok(detectEgress(allow, [], 'example.org:443').fired);
  t.ok(detectEgress(allow, [], '').fired, 'no destination: refuse');
});

t.test('after resolution: egressAllowsAddress checks CIDRs', async (t) => {
  t.ok(egressAllowsAddress(allow, '10.20.1.1'));
  t.notOk(egressAllowsAddress(allow, '8.8.8.8'));
  t.notOk(egressAllowsAddress(deny, '203.0.113.1'));
  t.notOk(egressAllowsAddress(allow, 'garbage'));
});

t.test('denies unlisted destinations through a rule with detector egress on the mcp surface', async (t) => {
  const fw = compileFirewall({
    policies: [{ id: 1, name: 'egress', surfaces: ['mcp'], rules: [{ id: 1, tool: 'fetch.*', detector: 'egress', verdict: 'deny' }] }],
    egress: { mode: 'allowlist', hosts: ['*.github.com'], cidrs: [] },
  });
  t.match(evaluateCall(fw, { surface: 'mcp', tool_name: 'fetch.get', arguments: { url: 'https://evil.example/' } }), { verdict: 'deny', reason_code: 'egress_denied', rule_id: 1 });
  t.equal(evaluateCall(fw, { surface: 'mcp', tool_name: 'fetch.get', arguments: { url: 'https://api.github.com/' } }).verdict, 'allow');
});
