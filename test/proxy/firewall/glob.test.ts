import t from 'tap';
import { compileGlob } from '../../../proxy/src/firewall/glob.js';

const m = (g: string, name: string): boolean => compileGlob(g)(name.toLowerCase());

t.test('literal globs match exactly, case folded', async (t) => {
  t.ok(m('GitHub.Create_Issue', 'github.create_issue'));
  t.notOk(m('github.create_issue', 'github.create_issues'));
});

t.test('* stays within one segment', async (t) => {
  t.ok(m('github.*', 'github.create_issue'));
  t.notOk(m('github.*', 'github.a.b'));
  t.ok(m('*.github.com', 'api.github.com'));
  t.notOk(m('*.github.com', 'a.b.github.com'));
  t.notOk(m('*.github.com', 'github.com'));
  t.ok(m('*', 'read_file'));
  t.notOk(m('*', 'fs.read_file'));
  t.ok(m('fs.read_*_v?', 'fs.read_file_v2'));
  t.notOk(m('fs.*_file', 'fs.x.y_file'));
});

t.test('** crosses segments', async (t) => {
  t.ok(m('**', 'a.b.c'));
  t.ok(m('corp.**', 'corp.a.b'));
  t.ok(m('**.github.com', 'a.b.github.com'));
  t.ok(m('a.**.z', 'a.b.c.z'));
  t.notOk(m('a.**.z', 'a.z'), 'the dots around ** are literal');
});

t.test('? is exactly one non-dot character', async (t) => {
  t.ok(m('s?.x', 's3.x'));
  t.notOk(m('s?.x', 's.x'));
  t.notOk(m('a?b', 'a.b'));
});

t.test('hostile globs stay fast (no backtracking blow-up)', async (t) => {
  const g = compileGlob('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b');
  const start = performance.now();
  t.notOk(g('a'.repeat(500)));
  t.ok(performance.now() - start < 50, 'bounded by pattern × name length');
});
