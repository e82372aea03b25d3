// CONTRACT §6: policies, egress and skills through the console API, validated
// with the field named, logged in the change log, and carried by the bundle.
import t from 'tap';
import { eachDatabase } from '../helpers/db.js';
import { startSystem, until } from '../helpers/system.js';

const P = '/api/workspace/firewall';

t.test('firewall configuration', async (t) => {
  await eachDatabase(t, async (t, server) => {
    const sys = await startSystem(t, server);
    const admin = await sys.session();
    const api = (method: string, path: string, body?: unknown, token = admin) => sys.call('cp', method, path, { token, headers: { 'x-workspace-id': '1' }, ...(body === undefined ? {} : { body }) });

    await t.test('a new workspace starts with the default policy: destructive commands and SSRF denied', async (t) => {
      const list = (await api('GET', `${P}/policies`)).json.data;
      t.equal(list.length, 1);
      t.match(list[0], { enabled: true, surfaces: ['mcp', 'response', 'inbound', 'egress'] });
      t.same(list[0].rules.map((r: { detector: string; verdict: string }) => [r.detector, r.verdict]), [['destructive_command', 'deny'], ['ssrf', 'deny']]);
      t.ok(list[0].rules.every((r: { id: number }) => Number.isInteger(r.id) && r.id > 0), 'rule ids are integers');
      const ws = await api('POST', '/api/workspaces', { name: 'fresh' });
      const other = await sys.call('cp', 'GET', `${P}/policies`, { token: admin, headers: { 'x-workspace-id': String(ws.json.id) } });
      t.equal(other.json.data.length, 1, 'every new workspace gets one');
    });

    await t.test('bad policies are rejected with 400 naming the field', async (t) => {
      const base = { name: 'p', surfaces: ['mcp'] };
      const cases: Array<[unknown, RegExp]> = [
        [{ ...base, rules: [{ tool: 'a b', verdict: 'deny' }] }, /^rules\[0\]\.tool:/],
        [{ ...base, rules: [{ tool: '*', verdict: 'explode' }] }, /^rules\[0\]\.verdict:/],
        [{ ...base, rules: [{ tool: '*', verdict: 'deny', args_match: [{ path: 'cmd', regex: '(a)\\1' }] }] }, /^rules\[0\]\.args_match\[0\]\.regex:/],
        [{ ...base, rules: [{ tool: '*', verdict: 'sanitize' }] }, /^rules\[0\]\.params:/],
        [{ ...base, rules: [{ tool: '*', verdict: 'cap_cost', params: { max_calls: 0, per: 'hour' } }] }, /^rules\[0\]\.params\.max_calls:/],
        [{ ...base, rules: [{ tool: '*', detector: 'telepathy', verdict: 'deny' }] }, /^rules\[0\]\.detector:/],
        [{ ...base, surfaces: ['carrier-pigeon'], rules: [] }, /^surfaces\[0\]:/],
        [{ ...base, rules: [{ tool: '*', verdict: 'deny', detecter: 'ssrf' }] }, /^rules\[0\]\.detecter: unknown field/],
        [{ rules: [] }, /^name:/],
      ];
      for (const [body, field] of cases) {
        const r = await api('POST', `${P}/policies`, body);
        t.equal(r.status, 400, JSON.stringify(body));
        t.equal(r.json.error.code, 'invalid_request');
        t.match(r.json.error.message, field);
      }
      const egress = await api('PUT', `${P}/egress`, { mode: 'allowlist', hosts: ['*.github.com'], cidrs: ['10.0.0.0/33'] });
      t.equal(egress.status, 400);
      t.match(egress.json.error.message, /^cidrs\[0\]:/);
      const skill = await api('PUT', `${P}/skills/deploy`, { mode: 'sometimes', tools: ['ops.*'] });
      t.match(skill.json.error.message, /^mode:/);
    });

    await t.test('create, update (rule ids kept), delete; every change in the change log', async (t) => {
      const created = await api('POST', `${P}/policies`, { name: 'ops', priority: 5, surfaces: ['mcp'], rules: [{ tool: 'ops.*', verdict: 'audit' }, { tool: 'db.*', args_match: [{ path: 'sql', contains: 'DROP' }], verdict: 'deny' }] });
      t.equal(created.status, 201);
      const [r1, r2] = created.json.rules;
      t.not(r1.id, r2.id);
      const updated = await api('PUT', `${P}/policies/${created.json.id}`, { name: 'ops v2', priority: 5, surfaces: ['mcp'], rules: [r2, { tool: 'new.*', verdict: 'deny' }] });
      t.equal(updated.status, 200);
      t.equal(updated.json.rules[0].id, r2.id, 'a rule sent with its id keeps it');
      t.notOk([r1.id, r2.id].includes(updated.json.rules[1].id), 'a new rule gets a new id');
      t.equal((await api('DELETE', `${P}/policies/${created.json.id}`)).status, 204);
      t.equal((await api('GET', `${P}/policies/${created.json.id}`)).status, 404);
      await api('PUT', `${P}/egress`, { mode: 'denylist', hosts: ['evil.example'], cidrs: ['203.0.113.0/24'] });
      await api('PUT', `${P}/skills/deploy`, { mode: 'block', tools: ['ops.deploy*'] });
      t.same((await api('GET', `${P}/skills/deploy`)).json, { name: 'deploy', mode: 'block', tools: ['ops.deploy*'] });
      t.equal((await api('DELETE', `${P}/skills/deploy`)).status, 204);
      t.equal((await api('DELETE', `${P}/skills/deploy`)).status, 404);
      const log = (await api('GET', `${P}/changes`)).json.data.map((c: { kind: string; action: string }) => `${c.kind}:${c.action}`);
      for (const e of ['policy:create', 'policy:update', 'policy:delete', 'egress:create', 'skill:create', 'skill:delete']) t.ok(log.includes(e), e);
      t.match((await api('GET', `${P}/changes`)).json.data[0], { actor: { email: 'admin@localhost' } });
    });

    await t.test('policies, egress and skills reach the sidecar bundle', async (t) => {
      await api('PUT', `${P}/skills/exfil`, { mode: 'audit', tools: ['net.*'] });
      await until(() => {
        const fw = sys.sidecar.deps.sync.current()!.bundle['firewall'] as { skills: Array<{ name: string }>; egress: { mode: string } | null };
        return fw.skills.some((s) => s.name === 'exfil') && fw.egress?.mode === 'denylist';
      }, 3000, 'bundle carries firewall config');
      t.pass('delivered');
    });

    await t.test('members cannot read or change firewall policy', async (t) => {
      await api('POST', '/api/admin/users', { email: 'mem@example.com', password: 'password-123' });
      await api('PUT', '/api/workspace/members', { email: 'mem@example.com', role: 'member' });
      const mt = (await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'mem@example.com', password: 'password-123' } })).json.token;
      t.equal((await api('POST', `${P}/policies`, { name: 'x', rules: [] }, mt)).status, 403);
      t.equal((await api('PUT', `${P}/egress`, { mode: 'denylist' }, mt)).status, 403);
    });
  });
});
