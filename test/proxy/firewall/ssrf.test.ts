// ssrf detector, judged through the engine with the default policy.
import t from 'tap';
import { compileFirewall, evaluateCall } from '../../../proxy/src/firewall/engine.js';
import { walkArguments } from '../../../proxy/src/firewall/args.js';
import { classifyAddress, classifyHost, detectSsrf, parseIPv4Loose } from '../../../proxy/src/firewall/detectors/ssrf.js';
import { HARMLESS } from './corpus/harmless.js';
import { SSRF_ATTACKS } from './corpus/ssrf-attacks.js';
import { DEFAULT_SNAPSHOT, pct, score } from './helpers.js';

const fw = compileFirewall(DEFAULT_SNAPSHOT);
const judge = (args: unknown) => evaluateCall(fw, { surface: 'response', tool_name: 'web_fetch', arguments: args });
const fires = (args: unknown): boolean => {
  const w = walkArguments(args);
  return w.ok && detectSsrf(w.strings).fired;
};

t.test('corpus: recall 100% on attacks, 0 harmless denied', async (t) => {
  const recall = score(SSRF_ATTACKS, (c) => fires(c.args));
  const fp = score(HARMLESS, (c) => fires(c.args));
  t.comment(`ssrf recall ${recall.hits}/${recall.total} (${pct(recall.hits, recall.total)})`);
  t.comment(`ssrf false positives ${fp.hits}/${fp.total} (${pct(fp.hits, fp.total)})`);
  t.ok(SSRF_ATTACKS.length >= 60, 'at least 60 attack forms');
  t.same(recall.misses, [], 'no attack missed');
  t.equal(fp.hits, 0, 'no look-alike fired');
});

for (const c of SSRF_ATTACKS) {
  t.test(`denies ${c.name}`, async (t) => {
    const v = judge(c.args);
    t.equal(v.verdict, 'deny');
    t.equal(v.reason_code, 'ssrf');
    t.equal(v.rule_id, 2);
    t.ok(v.factors.some((f) => f.startsWith('ssrf_')), 'factor names the finding');
  });
}

t.test('inet_aton parsing covers every IPv4 spelling', async (t) => {
  t.equal(parseIPv4Loose('2130706433'), '127.0.0.1');
  t.equal(parseIPv4Loose('0177.0.0.1'), '127.0.0.1');
  t.equal(parseIPv4Loose('0x7f.1'), '127.0.0.1');
  t.equal(parseIPv4Loose('127.1'), '127.0.0.1');
  t.equal(parseIPv4Loose('10.1.65535'), '10.1.255.255');
  t.equal(parseIPv4Loose('0x7f.0x00.0.01'), '127.0.0.1');
  t.equal(parseIPv4Loose('256.1.1.1'), undefined);
  t.equal(parseIPv4Loose('1.2.3.4.5'), undefined);
  t.equal(parseIPv4Loose('08.1.1.1'), undefined, '08 is neither octal nor plain decimal');
  t.equal(parseIPv4Loose('example.com'), undefined);
});

t.test('address classification', async (t) => {
  t.match(classifyAddress('169.254.169.254'), { internal: true, kind: 'metadata' });
  t.match(classifyAddress('::ffff:10.0.0.1'), { internal: true, kind: 'private' });
  t.match(classifyAddress('64:ff9b::808:808'), { internal: false }, 'NAT64 of a public address is public');
  t.match(classifyAddress('2002:0808:0808::1'), { internal: false }, '6to4 of a public address is public');
  t.match(classifyAddress('8.8.8.8'), { internal: false });
  t.match(classifyAddress('2606:4700::1111'), { internal: false });
  t.match(classifyAddress('224.0.0.1'), { internal: true });
  t.equal(classifyAddress('not-an-ip'), undefined);
  t.match(classifyHost('printer.local'), { internal: true });
  t.match(classifyHost('www.example.com'), { internal: false });
});

t.test('denies malformed arguments instead of guessing (cyclic)', async (t) => {
  const a: Record<string, unknown> = { url: 'https://example.com' };
  a.self = a;
  const v = judge(a);
  t.equal(v.verdict, 'deny');
  t.ok(v.factors.includes('evaluation_error:cyclic'));
});

t.test('allows a public URL with the verdict carrying no factors', async (t) => {
  const v = judge({ url: 'https://api.github.com/repos/x/y' });
  t.equal(v.verdict, 'allow');
  t.equal(v.risk_score, 0);
  t.same(v.factors, []);
});
