// The spec's "Guardrail version history", "Guardrail history" routes,
// "Errors" (uniform not-found) and "Limits" (retention 50), one rule per test.
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import { eachDatabase } from '../helpers/db.js';
import { until } from '../helpers/system.js';
import { startConsole } from '../helpers/console.js';

const BASE = '/api/guardrail';

const setup = startConsole;

const rule = (word: string) => ({ id: 'kw', type: 'keyword', stage: 'input', action: 'block', keywords: [word], match: 'word' });

t.test('guardrail version history', async (t) => {
  await eachDatabase(t, async (t, server) => {
    const { sys, admin, as, api, user } = await setup(t, server);
    const adminId = (await api('GET', '/api/workspace/members')).json.data[0].user_id as number;
    const adminEmail = sys.creds.admin_email;

    await t.test('create, update, delete and revert each append one row with the next version', async (t) => {
      const g = (await api('POST', BASE, { name: 'Trail', rules: [rule('one')] })).json;
      await api('PUT', `${BASE}/${g.id}`, { rules: [rule('two')] });
      await api('DELETE', `${BASE}/${g.id}`);
      const back = await api('POST', `${BASE}/${g.id}/revert`, { to_version: 2 });
      t.equal(back.status, 200);
      const h = await api('GET', `${BASE}/${g.id}/history`);
      t.equal(h.status, 200);
      t.equal(h.json.has_more, false);
      t.same(h.json.data.map((e: { version: number; operation: string }) => [e.version, e.operation]), [[4, 'revert'], [3, 'delete'], [2, 'update'], [1, 'create']], 'newest first');
      for (const e of h.json.data) {
        t.same(Object.keys(e).sort(), ['author', 'operation', 'timestamp', 'version']);
        t.same(e.author, { id: adminId, email: adminEmail });
        t.match(e.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ISO 8601 UTC');
      }
    });

    await t.test('the author is whoever made the change', async (t) => {
      const dev = as(await user('dev@example.com', 'developer'));
      const g = (await api('POST', BASE, { name: 'Authors' })).json;
      await dev('PUT', `${BASE}/${g.id}`, { enabled: false });
      const h = (await api('GET', `${BASE}/${g.id}/history`)).json.data;
      t.equal(h[0].author.email, 'dev@example.com');
      t.equal(h[1].author.email, adminEmail);
    });

    await t.test('a version carries the snapshot of name, enabled, is_default and rules', async (t) => {
      const g = (await api('POST', BASE, { name: 'Snap', enabled: false, is_default: true, rules: [rule('alpha')] })).json;
      const v = await api('GET', `${BASE}/${g.id}/history/1`);
      t.equal(v.status, 200);
      t.match(v.json, { version: 1, operation: 'create', author: { id: adminId, email: adminEmail }, timestamp: String });
      t.same(v.json.snapshot, { name: 'Snap', enabled: false, is_default: true, rules: [rule('alpha')] });
    });

    await t.test('revert to v4 appends v6 with v4 content', async (t) => {
      const g = (await api('POST', BASE, { name: 'v1', rules: [rule('w1')] })).json;
      await api('PUT', `${BASE}/${g.id}`, { name: 'v2', rules: [rule('w2')] });
      await api('PUT', `${BASE}/${g.id}`, { name: 'v3', is_default: true });
      await api('PUT', `${BASE}/${g.id}`, { name: 'v4', rules: [rule('w4')], enabled: false });
      const v5 = await api('PUT', `${BASE}/${g.id}`, { name: 'v5', rules: [rule('w5')], enabled: true, is_default: false });
      t.equal(v5.json.version, 5);
      const r = await api('POST', `${BASE}/${g.id}/revert`, { to_version: 4 });
      t.equal(r.status, 200);
      t.match(r.json, { id: g.id, name: 'v4', enabled: false, is_default: true, version: 6 });
      t.same(r.json.rules, [rule('w4')]);
      t.same(await api('GET', `${BASE}/${g.id}`).then((x) => x.json), r.json, 'the answer is the live guardrail');
      const v6 = (await api('GET', `${BASE}/${g.id}/history/6`)).json;
      const v4 = (await api('GET', `${BASE}/${g.id}/history/4`)).json;
      t.equal(v6.operation, 'revert');
      t.same(v6.snapshot, v4.snapshot, 'v6 content equals v4');
      const d = (await api('GET', `${BASE}/${g.id}/history/diff?from=4&to=6`)).json;
      t.same(d.changes, [], 'nothing differs between v4 and v6');
    });

    await t.test('a restored disabled or non-default state is restored as it was', async (t) => {
      const g = (await api('POST', BASE, { name: 'Quiet', enabled: false, is_default: false, rules: [rule('hush')] })).json;
      await api('PUT', `${BASE}/${g.id}`, { enabled: true, is_default: true });
      const inBundle = () => (sys.sidecar.deps.sync.current()?.bundle['guardrails'] as Array<{ id: number }> | undefined)?.some((x) => x.id === g.id) ?? false;
      await until(inBundle, 5000, 'enabled guardrail in bundle');
      const r = await api('POST', `${BASE}/${g.id}/revert`, { to_version: 1 });
      t.match(r.json, { enabled: false, is_default: false, version: 3 });
      await until(() => !inBundle(), 5000, 'reverted-to-disabled guardrail leaves the bundle');
      t.pass('the sidecar no longer receives it');
    });

    await t.test('reverting a soft-deleted guardrail undeletes it', async (t) => {
      const g = (await api('POST', BASE, { name: 'Phoenix', rules: [rule('ash')] })).json;
      await api('DELETE', `${BASE}/${g.id}`);
      t.equal((await api('GET', `${BASE}/${g.id}`)).status, 404);
      const r = await api('POST', `${BASE}/${g.id}/revert`, { to_version: 1 });
      t.equal(r.status, 200);
      t.match(r.json, { id: g.id, name: 'Phoenix', enabled: true, version: 3 });
      t.equal((await api('GET', `${BASE}/${g.id}`)).status, 200, 'readable again');
      t.ok((await api('GET', BASE)).json.data.some((x: { id: number }) => x.id === g.id), 'listed again');
      const inBundle = () => (sys.sidecar.deps.sync.current()?.bundle['guardrails'] as Array<{ id: number }> | undefined)?.some((x) => x.id === g.id) ?? false;
      await until(inBundle, 5000, 'undeleted guardrail back in the bundle');
    });

    await t.test('reverting a deleted guardrail onto a name now live elsewhere is 409 and changes nothing', async (t) => {
      const g = (await api('POST', BASE, { name: 'Taken' })).json;
      await api('DELETE', `${BASE}/${g.id}`);
      await api('POST', BASE, { name: 'Taken' });
      const r = await api('POST', `${BASE}/${g.id}/revert`, { to_version: 1 });
      t.equal(r.status, 409);
      t.equal(r.json.error.code, 'conflict');
      t.equal((await api('GET', `${BASE}/${g.id}/history`)).json.data.length, 2, 'no version appended');
      t.equal((await api('GET', `${BASE}/${g.id}`)).status, 404, 'still deleted');
    });

    await t.test('diff answers both snapshot entries and the fields that changed', async (t) => {
      const g = (await api('POST', BASE, { name: 'Diffed', rules: [rule('a')] })).json;
      await api('PUT', `${BASE}/${g.id}`, { name: 'Diffed 2', rules: [rule('b')] });
      const d = await api('GET', `${BASE}/${g.id}/history/diff?from=1&to=2`);
      t.equal(d.status, 200);
      t.match(d.json.from, { version: 1, operation: 'create', author: { email: adminEmail }, snapshot: { name: 'Diffed' } });
      t.match(d.json.to, { version: 2, operation: 'update', snapshot: { name: 'Diffed 2' } });
      t.same(d.json.changes, [
        { field: 'name', from: 'Diffed', to: 'Diffed 2' },
        { field: 'rules', from: [rule('a')], to: [rule('b')] },
      ]);
      const back = (await api('GET', `${BASE}/${g.id}/history/diff?from=2&to=1`)).json;
      t.same(back.changes.map((c: { field: string; from: unknown }) => [c.field, c.from]), [['name', 'Diffed 2'], ['rules', [rule('b')]]], 'either direction');
      t.same((await api('GET', `${BASE}/${g.id}/history/diff?from=2&to=2`)).json.changes, []);
    });

    await t.test('diff query: from and to are required version numbers, named when wrong', async (t) => {
      const g = (await api('GET', BASE)).json.data[0];
      for (const [q, field] of [['from=abc&to=1', 'from'], ['from=1', 'to'], ['from=0&to=1', 'from'], ['from=1&to=1&x=2', 'x']] as const) {
        const r = await api('GET', `${BASE}/${g.id}/history/diff?${q}`);
        t.equal(r.status, 400, q);
        t.equal(r.json.error.metadata.field, field);
      }
    });

    await t.test('retention: 55 versions keep the newest 50, oldest pruned, versions still monotonic', async (t) => {
      const g = (await api('POST', BASE, { name: 'Busy', rules: [rule('w1')] })).json;
      for (let i = 2; i <= 55; i++) {
        const r = await api('PUT', `${BASE}/${g.id}`, { rules: [rule(`w${i}`)] });
        t.equal(r.json.version, i, `edit ${i} is version ${i}`);
      }
      const h = (await api('GET', `${BASE}/${g.id}/history`)).json;
      t.equal(h.data.length, 50);
      t.same(h.data.map((e: { version: number }) => e.version), Array.from({ length: 50 }, (_, i) => 55 - i), 'v55 down to v6');
      const rows = await sys.cp.deps.pool.query<{ n: number; lo: number }>('SELECT count(*)::int AS n, min(version) AS lo FROM guardrail_versions WHERE guardrail_id = $1', [g.id]);
      t.same(rows.rows[0], { n: 50, lo: 6 }, 'pruned from the table, not just hidden');
      const missing = await api('GET', `${BASE}/987654`);
      t.equal((await api('GET', `${BASE}/${g.id}/history/5`)).text, missing.text, 'a pruned version is the uniform not-found');
      t.equal((await api('GET', `${BASE}/${g.id}/history/diff?from=1&to=55`)).text, missing.text);
      t.equal((await api('POST', `${BASE}/${g.id}/revert`, { to_version: 5 })).text, missing.text, 'a pruned version cannot be restored');
      const next = await api('PUT', `${BASE}/${g.id}`, { enabled: false });
      t.equal(next.json.version, 56, 'numbering continues after pruning');
      const after = (await api('GET', `${BASE}/${g.id}/history`)).json.data;
      t.same([after.length, after[0].version, after[49].version], [50, 56, 7]);
      const oldest = await api('POST', `${BASE}/${g.id}/revert`, { to_version: 7 });
      t.match(oldest.json, { version: 57, enabled: true });
      t.same(oldest.json.rules, [rule('w7')], 'the oldest kept version restores');
    });

    await t.test('20 parallel PUTs to one guardrail give versions exactly 1..21, no gaps or duplicates', async (t) => {
      const g = (await api('POST', BASE, { name: 'Contended' })).json;
      const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => api('PUT', `${BASE}/${g.id}`, { rules: [rule(`p${i}`)] })));
      t.same(rs.map((r) => r.status), Array(20).fill(200));
      t.same(rs.map((r) => r.json.version as number).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 2), 'each PUT got its own version');
      const h = (await api('GET', `${BASE}/${g.id}/history`)).json.data;
      t.same(h.map((e: { version: number }) => e.version), Array.from({ length: 21 }, (_, i) => 21 - i));
      const live = (await api('GET', `${BASE}/${g.id}`)).json;
      t.equal(live.version, 21);
      const v21 = (await api('GET', `${BASE}/${g.id}/history/21`)).json;
      t.same(v21.snapshot.rules, live.rules, 'the newest version is what is live');
      // Each version's snapshot is the PUT that answered with that version.
      for (const r of rs) t.same((await api('GET', `${BASE}/${g.id}/history/${r.json.version}`)).json.snapshot.rules, r.json.rules);
    });

    await t.test('parallel reverts and updates never duplicate or skip a version', async (t) => {
      const g = (await api('POST', BASE, { name: 'Mixed race', rules: [rule('m1')] })).json;
      await api('PUT', `${BASE}/${g.id}`, { rules: [rule('m2')] });
      const ops = Array.from({ length: 12 }, (_, i) => (i % 2 === 0
        ? api('POST', `${BASE}/${g.id}/revert`, { to_version: 1 })
        : api('PUT', `${BASE}/${g.id}`, { enabled: i % 4 === 1 })));
      const rs = await Promise.all(ops);
      t.same(rs.map((r) => r.status), Array(12).fill(200));
      const h = (await api('GET', `${BASE}/${g.id}/history`)).json.data.map((e: { version: number }) => e.version);
      t.same(h, Array.from({ length: 14 }, (_, i) => 14 - i));
    });

    await t.test('uniform not-found, byte for byte: other workspace, missing guardrail, missing version', async (t) => {
      const g = (await api('POST', BASE, { name: 'Private' })).json;
      const other = await api('POST', '/api/workspaces', { name: 'elsewhere' });
      const there = as(admin, other.json.id);
      const missing = await api('GET', `${BASE}/987654/history`);
      t.equal(missing.status, 404);
      t.same(missing.json, { error: { type: 'api_error', code: 'not_found', message: 'Guardrail not found.' } });
      const cases: Array<[string, ReturnType<typeof api>]> = [
        ['missing guardrail, read', api('GET', `${BASE}/987654`)],
        ['missing guardrail, version', api('GET', `${BASE}/987654/history/1`)],
        ['missing guardrail, diff', api('GET', `${BASE}/987654/history/diff?from=1&to=1`)],
        ['missing guardrail, revert', api('POST', `${BASE}/987654/revert`, { to_version: 1 })],
        ['other workspace, history', there('GET', `${BASE}/${g.id}/history`)],
        ['other workspace, version', there('GET', `${BASE}/${g.id}/history/1`)],
        ['other workspace, diff', there('GET', `${BASE}/${g.id}/history/diff?from=1&to=1`)],
        ['other workspace, revert', there('POST', `${BASE}/${g.id}/revert`, { to_version: 1 })],
        ['missing version', api('GET', `${BASE}/${g.id}/history/2`)],
        ['missing version in diff', api('GET', `${BASE}/${g.id}/history/diff?from=1&to=9`)],
        ['missing version, revert', api('POST', `${BASE}/${g.id}/revert`, { to_version: 9 })],
        ['version beyond any integer', api('GET', `${BASE}/${g.id}/history/99999999999`)],
        ['revert beyond any integer', api('POST', `${BASE}/${g.id}/revert`, { to_version: 99999999999 })],
        ['version 0', api('GET', `${BASE}/${g.id}/history/0`)],
        ['version not a number', api('GET', `${BASE}/${g.id}/history/latest`)],
        ['id not a number', api('GET', `${BASE}/abc/history`)],
      ];
      for (const [what, pending] of cases) {
        const r = await pending;
        t.equal(r.status, 404, what);
        t.equal(r.text, missing.text, `${what}: same bytes`);
      }
      t.equal((await api('GET', `${BASE}/${g.id}/history`)).json.data.length, 1, 'no foreign revert landed');
    });

    await t.test('a member reads history, versions and diffs but cannot revert (403)', async (t) => {
      const g = (await api('POST', BASE, { name: 'Readable', rules: [rule('r1')] })).json;
      await api('PUT', `${BASE}/${g.id}`, { rules: [rule('r2')] });
      const member = as(await user('member@example.com', 'member'));
      t.equal((await member('GET', `${BASE}/${g.id}/history`)).json.data.length, 2);
      t.equal((await member('GET', `${BASE}/${g.id}/history/1`)).status, 200);
      t.equal((await member('GET', `${BASE}/${g.id}/history/diff?from=1&to=2`)).status, 200);
      const r = await member('POST', `${BASE}/${g.id}/revert`, { to_version: 1 });
      t.equal(r.status, 403);
      t.equal(r.json.error.code, 'forbidden');
      t.equal((await api('GET', `${BASE}/${g.id}`)).json.version, 2, 'nothing reverted');
      const dev = as(await user('dev2@example.com', 'developer'));
      t.equal((await dev('POST', `${BASE}/${g.id}/revert`, { to_version: 1 })).status, 200, 'a developer may revert');
    });

    await t.test('revert body: to_version must be a positive integer', async (t) => {
      const g = (await api('GET', BASE)).json.data[0];
      for (const body of [{}, { to_version: '1' }, { to_version: 1.5 }, { to_version: 0 }]) {
        const r = await api('POST', `${BASE}/${g.id}/revert`, body);
        t.equal(r.status, 400, JSON.stringify(body));
        t.equal(r.json.error.metadata.field, 'to_version');
      }
    });

    await t.test('a revert bumps the bundle: the sidecar gets the restored rules', async (t) => {
      const g = (await api('POST', BASE, { name: 'Synced', rules: [rule('first')] })).json;
      await api('PUT', `${BASE}/${g.id}`, { rules: [rule('second')] });
      await api('POST', `${BASE}/${g.id}/revert`, { to_version: 1 });
      await until(() => {
        const section = sys.sidecar.deps.sync.current()?.bundle['guardrails'] as Array<{ id: number; rules: unknown[] }> | undefined;
        return isDeepStrictEqual(section?.find((x) => x.id === g.id)?.rules, [rule('first')]);
      }, 5000, 'restored rules in bundle');
      t.pass('restored rules reached the sidecar');
    });
  });
});
