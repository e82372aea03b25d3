// destructive_command detector, judged through the engine with the default
// policy: every attack in the corpus is denied, no look-alike is.
import t from 'tap';
import { compileFirewall, evaluateCall } from '../../../proxy/src/firewall/engine.js';
import { walkArguments } from '../../../proxy/src/firewall/args.js';
import { detectDestructive } from '../../../proxy/src/firewall/detectors/destructive-command.js';
import { checkCommands, JUDGED_NAMES } from '../../../proxy/src/firewall/detectors/destructive-shell.js';
import { normaliseShell, splitCommands } from '../../../proxy/src/firewall/detectors/shell-words.js';
import { DESTRUCTIVE_ATTACKS } from './corpus/destructive-attacks.js';
import { HARMLESS } from './corpus/harmless.js';
import { DEFAULT_SNAPSHOT, pct, score } from './helpers.js';

const fw = compileFirewall(DEFAULT_SNAPSHOT);
const judge = (args: unknown) => evaluateCall(fw, { surface: 'mcp', tool_name: 'shell.exec', arguments: args });
const fires = (args: unknown): boolean => {
  const w = walkArguments(args);
  return w.ok && detectDestructive(w.strings).fired;
};

t.test('corpus: recall 100% on attacks, 0 harmless denied', async (t) => {
  const recall = score(DESTRUCTIVE_ATTACKS, (c) => fires(c.args));
  const fp = score(HARMLESS, (c) => fires(c.args));
  t.comment(`destructive_command recall ${recall.hits}/${recall.total} (${pct(recall.hits, recall.total)})`);
  t.comment(`destructive_command false positives ${fp.hits}/${fp.total} (${pct(fp.hits, fp.total)})`);
  t.ok(DESTRUCTIVE_ATTACKS.length >= 60, 'at least 60 attack forms');
  t.ok(HARMLESS.length >= 60, 'at least 60 look-alikes');
  t.same(recall.misses, [], 'no attack missed');
  t.equal(fp.hits, 0, 'no look-alike fired');
});

for (const c of DESTRUCTIVE_ATTACKS) {
  t.test(`denies ${c.name}`, async (t) => {
    const v = judge(c.args);
    t.equal(v.verdict, 'deny');
    t.equal(v.reason_code, 'destructive_command');
    t.ok(v.risk_score >= 0.7 && v.risk_score <= 1, 'risk in range');
    t.ok(v.factors.length > 0, 'factors name what fired');
    t.equal(v.policy_id, 1);
    t.equal(v.rule_id, 1);
  });
}

for (const c of HARMLESS) {
  t.test(`allows look-alike: ${c.name}`, async (t) => {
    t.equal(judge(c.args).verdict, 'allow');
  });
}

t.test('denies a destructive command hidden in JSON inside a string inside JSON', async (t) => {
  const inner = JSON.stringify({ run: 'rm -rf /' });
  const v = judge({ body: JSON.stringify({ wrapped: inner }) });
  t.equal(v.verdict, 'deny');
});

t.test('denies three layers of encoding (base64 of URL-encoded hex escapes)', async (t) => {
  const b64 = Buffer.from("printf '\\x72\\x6d -rf /' | sh").toString('base64');
  t.equal(judge({ command: `echo ${b64} | base64 -d | bash` }).verdict, 'deny');
});

t.test('denies a destructive command in an object key', async (t) => {
  t.equal(judge({ 'rm -rf /': true }).verdict, 'deny');
});

// Commas are not replaced in the whole text (prose is full of them); the
// splitter and reader treat them as blanks. Reading a text must give the
// same commands, positions and findings as reading it with every comma
// replaced by a space.
t.test('commas split words exactly as spaces do', async (t) => {
  const texts = [...DESTRUCTIVE_ATTACKS, ...HARMLESS].flatMap((c) => {
    const w = walkArguments(c.args);
    return w.ok ? w.strings.map((l) => normaliseShell(l.value.toLowerCase())) : [];
  });
  const pieces = ['rm', '-rf', '/', ',', ', ', ' ,', 'echo', 'x', '|', ';', 'sh', 'a=b,c', './bin/', 'mkfs,', 'sudo', '\n', '(', 'git', 'push', '--force', 'main'];
  let seed = 11;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let i = 0; i < 3000; i++) {
    let s = '';
    for (let j = rand(10); j >= 0; j--) s += pieces[rand(pieces.length)];
    texts.push(s);
  }
  const read = (s: string) => {
    const cmds = splitCommands(s, JUDGED_NAMES);
    const out: unknown[] = [];
    const fed: string[] = [];
    checkCommands(s, cmds, out as never[], fed);
    return JSON.stringify({ cmds, out, fed });
  };
  const withCommas = texts.filter((s) => s.includes(','));
  const differ = withCommas.filter((s) => read(s) !== read(s.replaceAll(',', ' ')));
  t.ok(withCommas.length > 1000, `${withCommas.length} texts with commas`);
  t.same(differ.slice(0, 5), [], 'read alike');
});
