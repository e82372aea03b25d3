// args_match regexes: the literal-prefix check in front of re2js never
// changes a result.
import t from 'tap';
import { RE2JS } from 're2js';
import { anchoredPrefix, compileRule, matchArgs } from '../../../proxy/src/firewall/rules.js';

t.test('anchoredPrefix is proven from the pattern text only', async (t) => {
  t.equal(anchoredPrefix('^secret-'), 'secret-');
  t.equal(anchoredPrefix('^/etc/'), '/etc/');
  t.equal(anchoredPrefix('^abc?'), 'ab');
  t.equal(anchoredPrefix('^abc*'), 'ab');
  t.equal(anchoredPrefix('^abc{0,2}'), 'ab');
  t.equal(anchoredPrefix('^abc+'), 'abc');
  t.equal(anchoredPrefix('^ab\\d'), 'ab');
  t.equal(anchoredPrefix('^a.c'), 'a');
  t.equal(anchoredPrefix('^(kube-system|prod)$'), undefined);
  t.equal(anchoredPrefix('^abc|def'), undefined);
  t.equal(anchoredPrefix('(?i)^abc'), undefined);
  t.equal(anchoredPrefix('abc'), undefined);
  t.equal(anchoredPrefix('^'), undefined);
  t.equal(anchoredPrefix('^a?'), undefined);
  t.equal(anchoredPrefix('^\\x41'), undefined);
});

t.test('a rule with a prefixed regex matches exactly what re2js matches', async (t) => {
  const patterns = ['^secret-', '^/etc/', '^abc?d', '^ab*', '^a{0}b', '^x+y', '^a.c$', '^ab(c|d)', '^a b', '^ab(?i)C', '^ab\\.c', '^ab[cd]'];
  const values = ['secret-x', 'secret', 'Secret-x', ' secret-x', 'x secret-', '/etc/passwd', '/etc', '/ETC/x', 'abd', 'abcd', 'abccd', 'ad', 'a', 'abbb', 'b', 'bx', 'xxy', 'y', 'abc', 'a-c', 'abC', 'abc\n', 'a b', 'ab.c', 'abxc', 'abd', '', 'ab'];
  for (const regex of patterns) {
    const re = RE2JS.compile(regex);
    const rule = compileRule(1, { id: 1, tool: '**', verdict: 'deny', args_match: [{ path: 'v', regex }] } as never);
    for (const v of values) t.equal(matchArgs(rule, { v }), re.test(v), `${regex} on ${JSON.stringify(v)}`);
  }
});
