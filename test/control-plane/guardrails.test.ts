// CONTRACT §9: the guardrails API of the control plane. Save-time rule
// validation by the shared engine, roles, names, soft delete, the dry run
// and the bundle section the sidecars receive.
import t from 'tap';
import { eachDatabase } from '../helpers/db.js';
import { until, type System } from '../helpers/system.js';
import { startConsole } from '../helpers/console.js';

const BASE = '/api/guardrail';

const setup = startConsole;

function bundleGuardrails(sys: System): Array<{ id: number; name: string; is_default: boolean; rules: unknown[] }> {
  const section = sys.sidecar.deps.sync.current()?.bundle['guardrails'];
  return Array.isArray(section) ? section : [];
}

const KEYWORD = { id: 'falcon', type: 'keyword', stage: 'both', action: 'block', keywords: ['falcon'], match: 'word' };

t.test('guardrails API', async (t) => {
  await eachDatabase(t, async (t, server) => {
    const { sys, admin, as, api, user } = await setup(t, server);

    await t.test('create answers the bare record at version 1; list and read show it', async (t) => {
      const r = await api('POST', BASE, { name: 'Project names', rules: [KEYWORD] });
      t.equal(r.status, 201);
      t.match(r.json, { id: Number, name: 'Project names', enabled: true, is_default: false, version: 1 });
      t.same(Object.keys(r.json).sort(), ['created_at', 'enabled', 'id', 'is_default', 'name', 'rules', 'updated_at', 'version']);
      t.match(r.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ISO 8601 UTC');
      t.same(r.json.rules, [KEYWORD]);
      const list = await api('GET', BASE);
      t.equal(list.status, 200);
      t.equal(list.json.has_more, false);
      t.same(list.json.data.map((g: { id: number }) => g.id), [r.json.id]);
      t.same((await api('GET', `${BASE}/${r.json.id}`)).json, r.json);
    });

    await t.test('rules are stored normalised: defaults the engine applies are visible', async (t) => {
      const r = await api('POST', BASE, { name: 'defaults', rules: [{ type: 'keyword', stage: 'input', action: 'flag', keywords: ['x'] }, { type: 'llm_judge', stage: 'input', model: 'm', criteria: 'c' }] });
      t.equal(r.status, 201);
      t.match(r.json.rules[0], { match: 'word' });
      t.match(r.json.rules[1], { action: 'block', threshold: 0.5, failure_mode: 'closed' });
      await api('DELETE', `${BASE}/${r.json.id}`);
    });

    await t.test('save-time validation denies bad rules with 400 naming the rule and field', async (t) => {
      const before = (await api('GET', BASE)).json.data.length;
      const cases: Array<[unknown[], RegExp, string]> = [
        [[{ type: 'regex', stage: 'input', action: 'block', pattern: '(a)\\1' }], /^rules\[0\]\.pattern: unsupported by the linear-time engine/, 'rules[0].pattern'],
        [[{ type: 'regex', stage: 'input', action: 'block', pattern: 'foo(?=bar)' }], /^rules\[0\]\.pattern: unsupported/, 'rules[0].pattern'],
        [[KEYWORD, { id: 'card', type: 'regex', stage: 'input', action: 'mask', pattern: '(x' }], /^rules\[1\] \(id "card"\)\.pattern: /, 'rules[1].pattern'],
        [[{ type: 'pii', stage: 'input', entities: { passport_number: 'mask' } }], /^rules\[0\]\.entities\.passport_number: unknown entity "passport_number"/, 'rules[0].entities.passport_number'],
        [[{ type: 'secret', stage: 'output', entities: { my_token: 'block' } }], /^rules\[0\]\.entities\.my_token: unknown entity/, 'rules[0].entities.my_token'],
        [[{ type: 'keyword', stage: 'input', keywords: ['x'] }], /^rules\[0\]\.action: /, 'rules[0].action'],
        [[{ type: 'telepathy', stage: 'input', action: 'block' }], /^rules\[0\]\.type: /, 'rules[0].type'],
        [[{ ...KEYWORD, color: 'red' }], /^rules\[0\] \(id "falcon"\): .*color/, 'rules[0]'],
        [[KEYWORD, KEYWORD], /^rules\[1\] \(id "falcon"\)\.id: duplicate rule id/, 'rules[1].id'],
      ];
      for (const [rules, message, field] of cases) {
        const r = await api('POST', BASE, { name: 'bad', rules });
        t.equal(r.status, 400, JSON.stringify(rules));
        t.equal(r.json.error.code, 'invalid_request');
        t.match(r.json.error.message, message);
        t.equal(r.json.error.metadata.field, field);
      }
      t.equal((await api('POST', BASE, { name: 'bad', rules: 'falcon' })).json.error.message, 'rules: expected array');
      t.equal((await api('GET', BASE)).json.data.length, before, 'nothing was created');
    });

    await t.test('an update with bad rules is refused and leaves the guardrail and its version unchanged', async (t) => {
      const g = (await api('POST', BASE, { name: 'stable', rules: [KEYWORD] })).json;
      const r = await api('PUT', `${BASE}/${g.id}`, { rules: [{ type: 'regex', stage: 'input', action: 'block', pattern: '(a)\\1' }] });
      t.equal(r.status, 400);
      t.match(r.json.error.message, /^rules\[0\]\.pattern: /);
      t.same((await api('GET', `${BASE}/${g.id}`)).json, g);
      t.equal((await api('GET', `${BASE}/${g.id}/history`)).json.data.length, 1);
      await api('DELETE', `${BASE}/${g.id}`);
    });

    await t.test('names are 1-200 characters and not blank', async (t) => {
      for (const name of ['', ' \t ', 'x'.repeat(201)]) {
        const r = await api('POST', BASE, { name });
        t.equal(r.status, 400, JSON.stringify(name));
        t.match(r.json.error.message, /^name: /);
      }
      t.equal((await api('POST', BASE, {})).json.error.message.startsWith('name: '), true, 'name is required');
      const long = await api('POST', BASE, { name: 'y'.repeat(200) });
      t.equal(long.status, 201);
      await api('DELETE', `${BASE}/${long.json.id}`);
    });

    await t.test('unknown fields are refused with 400 naming the field', async (t) => {
      const r = await api('POST', BASE, { name: 'x', color: 'red' });
      t.equal(r.status, 400);
      t.equal(r.json.error.metadata.field, 'color');
    });

    await t.test('a live duplicate name is 409 conflict; deleting frees the name', async (t) => {
      const a = (await api('POST', BASE, { name: 'Unique' })).json;
      const dup = await api('POST', BASE, { name: 'Unique' });
      t.equal(dup.status, 409);
      t.equal(dup.json.error.code, 'conflict');
      const b = (await api('POST', BASE, { name: 'Other' })).json;
      t.equal((await api('PUT', `${BASE}/${b.id}`, { name: 'Unique' })).status, 409, 'renaming onto a live name');
      t.equal((await api('PUT', `${BASE}/${a.id}`, { name: 'Unique' })).status, 200, 'keeping its own name');
      t.equal((await api('DELETE', `${BASE}/${a.id}`)).status, 204);
      t.equal((await api('POST', BASE, { name: 'Unique' })).status, 201, 'a deleted guardrail frees its name');
    });

    await t.test('parallel creates of one name: one 201, the rest 409, never 500', async (t) => {
      const rs = await Promise.all(Array.from({ length: 8 }, () => api('POST', BASE, { name: 'Raced' })));
      t.same(rs.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
    });

    await t.test('PUT changes only the fields sent and moves the version on', async (t) => {
      const g = (await api('POST', BASE, { name: 'Partial', rules: [KEYWORD] })).json;
      const r = await api('PUT', `${BASE}/${g.id}`, { enabled: false });
      t.equal(r.status, 200);
      t.match(r.json, { name: 'Partial', enabled: false, is_default: false, version: 2 });
      t.same(r.json.rules, [KEYWORD]);
      t.ok(r.json.updated_at >= g.updated_at);
    });

    await t.test('roles: members read and dry-run, developers write', async (t) => {
      const g = (await api('POST', BASE, { name: 'Roles', rules: [KEYWORD] })).json;
      const member = as(await user('member@example.com', 'member'));
      const dev = as(await user('dev@example.com', 'developer'));
      t.equal((await member('GET', BASE)).status, 200);
      t.equal((await member('GET', `${BASE}/${g.id}`)).status, 200);
      t.equal((await member('POST', `${BASE}/${g.id}/evaluate`, { text: 'falcon', stage: 'input' })).status, 200);
      for (const [method, path, body] of [['POST', BASE, { name: 'm' }], ['PUT', `${BASE}/${g.id}`, { enabled: false }], ['DELETE', `${BASE}/${g.id}`, undefined]] as const) {
        const r = await member(method, path, body);
        t.equal(r.status, 403, `member ${method} ${path}`);
        t.equal(r.json.error.code, 'forbidden');
      }
      t.equal((await api('GET', `${BASE}/${g.id}`)).json.version, 1, 'a refused write appends no version');
      const created = await dev('POST', BASE, { name: 'By developer' });
      t.equal(created.status, 201);
      t.equal((await dev('PUT', `${BASE}/${created.json.id}`, { is_default: true })).status, 200);
      t.equal((await dev('DELETE', `${BASE}/${created.json.id}`)).status, 204);
      t.equal((await sys.call('cp', 'GET', BASE, { token: sys.creds.relay_key })).status, 401, 'a relay key never manages guardrails');
    });

    await t.test('soft delete: gone from list and read, its history stays readable', async (t) => {
      const g = (await api('POST', BASE, { name: 'Doomed', rules: [KEYWORD] })).json;
      t.equal((await api('DELETE', `${BASE}/${g.id}`)).status, 204);
      const read = await api('GET', `${BASE}/${g.id}`);
      t.equal(read.status, 404);
      t.equal(read.json.error.code, 'not_found');
      t.notOk((await api('GET', BASE)).json.data.some((x: { id: number }) => x.id === g.id));
      t.equal((await api('PUT', `${BASE}/${g.id}`, { enabled: true })).status, 404, 'a deleted guardrail cannot be updated');
      t.equal((await api('DELETE', `${BASE}/${g.id}`)).status, 404, 'nor deleted twice');
      t.equal((await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'falcon', stage: 'input' })).status, 404);
      const history = await api('GET', `${BASE}/${g.id}/history`);
      t.equal(history.status, 200);
      t.same(history.json.data.map((e: { operation: string }) => e.operation), ['delete', 'create']);
    });

    await t.test('another workspace\'s guardrail is the same not-found as a missing one, byte for byte', async (t) => {
      const g = (await api('POST', BASE, { name: 'Mine' })).json;
      const other = await api('POST', '/api/workspaces', { name: 'other' });
      const there = as(admin, other.json.id);
      const foreign = await there('GET', `${BASE}/${g.id}`);
      const missing = await api('GET', `${BASE}/987654`);
      t.equal(foreign.status, 404);
      t.equal(foreign.text, missing.text);
      t.equal((await there('PUT', `${BASE}/${g.id}`, { enabled: false })).text, missing.text);
      t.equal((await there('DELETE', `${BASE}/${g.id}`)).text, missing.text);
      t.equal((await there('POST', `${BASE}/${g.id}/evaluate`, { text: 'x', stage: 'input' })).text, missing.text);
      t.equal((await api('GET', `${BASE}/abc`)).text, missing.text);
      t.equal((await api('GET', `${BASE}/99999999999999999999`)).text, missing.text);
      t.notOk((await there('GET', BASE)).json.data.some((x: { id: number }) => x.id === g.id), 'not listed there');
      t.equal((await api('GET', `${BASE}/${g.id}`)).json.version, 1, 'untouched by the foreign attempts');
    });

    await t.test('dry run: mask redacts in place, findings carry offsets and never the matched text', async (t) => {
      const email = 'jane.doe@example.com';
      const g = (await api('POST', BASE, { name: 'Mask email', rules: [{ id: 'pii', type: 'pii', stage: 'input', entities: { email: 'mask' } }] })).json;
      const text = `Write to ${email} today`;
      const r = await api('POST', `${BASE}/${g.id}/evaluate`, { text, stage: 'input' });
      t.equal(r.status, 200);
      t.equal(r.json.verdict, 'mask');
      t.equal(r.json.masked_text, 'Write to [REDACTED:EMAIL] today');
      t.same(r.json.findings, [{ rule_id: 'pii', type: 'pii', entity: 'email', action: 'mask', start: 9, end: 9 + email.length }]);
      t.notMatch(r.text, email, 'the matched text appears nowhere in the answer');
      t.notMatch(r.text, 'jane');
      t.same(r.json.notes, []);
    });

    await t.test('dry run: block, flag and allow, each finding without text', async (t) => {
      const g = (await api('POST', BASE, { name: 'Mixed', rules: [
        { id: 'kw', type: 'keyword', stage: 'input', action: 'block', keywords: ['falcon'] },
        { id: 'code', type: 'regex', stage: 'both', action: 'flag', pattern: 'proj-[0-9]{3}', entity: 'project_code' },
        { id: 'out', type: 'keyword', stage: 'output', action: 'block', keywords: ['secret plan'] },
      ] })).json;
      const block = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'the FALCON launches', stage: 'input' });
      t.equal(block.json.verdict, 'block');
      t.same(block.json.findings, [{ rule_id: 'kw', type: 'keyword', entity: 'keyword', action: 'block', start: 4, end: 10 }]);
      const flag = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'see proj-123', stage: 'input' });
      t.equal(flag.json.verdict, 'flag');
      t.same(flag.json.findings, [{ rule_id: 'code', type: 'regex', entity: 'project_code', action: 'flag', start: 4, end: 12 }]);
      t.equal(flag.json.masked_text, 'see proj-123', 'flag does not change the text');
      const allow = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'nothing to see', stage: 'input' });
      t.same(allow.json, { verdict: 'allow', findings: [], masked_text: 'nothing to see', notes: [] });
      const stages = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'the secret plan', stage: 'input' });
      t.equal(stages.json.verdict, 'allow', 'an output rule does not run at the input stage');
      t.equal((await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'the secret plan', stage: 'output' })).json.verdict, 'block');
      for (const f of [...block.json.findings, ...flag.json.findings]) {
        t.same(Object.keys(f).sort(), ['action', 'end', 'entity', 'rule_id', 'start', 'type'], 'no text field on a finding');
      }
    });

    await t.test('dry run lists llm_judge and grounding rules as not evaluated in notes', async (t) => {
      const g = (await api('POST', BASE, { name: 'Judged', rules: [
        { id: 'judge', type: 'llm_judge', stage: 'input', model: 'gpt-4.1-mini', criteria: 'no medical advice' },
        { id: 'ground', type: 'grounding', stage: 'output', model: 'gpt-4.1-mini' },
        { id: 'kw', type: 'keyword', stage: 'input', action: 'flag', keywords: ['dose'] },
      ] })).json;
      const r = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'what dose should I take', stage: 'input' });
      t.equal(r.status, 200);
      t.equal(r.json.verdict, 'flag');
      t.equal(r.json.notes.length, 1);
      t.match(r.json.notes[0], /^rule judge \(llm_judge\) was not evaluated/);
      const out = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'answer', stage: 'output' });
      t.match(out.json.notes, [/^rule ground \(grounding\) was not evaluated/]);
    });

    await t.test('dry run input is validated: stage must be input or output', async (t) => {
      const g = (await api('GET', BASE)).json.data[0];
      const r = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'x', stage: 'both' });
      t.equal(r.status, 400);
      t.equal(r.json.error.metadata.field, 'stage');
      t.equal((await api('POST', `${BASE}/${g.id}/evaluate`, { stage: 'input' })).json.error.metadata.field, 'text');
    });

    await t.test('rules the engine no longer accepts are refused by the dry run and by a revert, never run', async (t) => {
      // Simulates rules saved under an older engine: written behind the API's back.
      const g = (await api('POST', BASE, { name: 'Legacy', rules: [KEYWORD] })).json;
      const legacy = JSON.stringify([{ type: 'telepathy', stage: 'input', action: 'block' }]);
      await sys.cp.deps.pool.query('UPDATE guardrails SET rules = $2 WHERE id = $1', [g.id, legacy]);
      await sys.cp.deps.pool.query('UPDATE guardrail_versions SET rules = $2 WHERE guardrail_id = $1', [g.id, legacy]);
      const dry = await api('POST', `${BASE}/${g.id}/evaluate`, { text: 'falcon', stage: 'input' });
      t.equal(dry.status, 400);
      t.match(dry.json.error.message, /^rules: the stored rules no longer validate: .*rules\[0\]\.type/);
      const back = await api('POST', `${BASE}/${g.id}/revert`, { to_version: 1 });
      t.equal(back.status, 400);
      t.equal(back.json.error.metadata.field, 'to_version');
      t.equal((await api('GET', `${BASE}/${g.id}/history`)).json.data.length, 1, 'no version appended');
      await api('PUT', `${BASE}/${g.id}`, { rules: [KEYWORD] });
    });

    await t.test('openapi documents every guardrail route', async (t) => {
      const doc = (await sys.call('cp', 'GET', '/api/openapi.json')).json;
      for (const [path, method] of [
        ['/api/guardrail', 'post'], ['/api/guardrail', 'get'], ['/api/guardrail/{id}', 'get'], ['/api/guardrail/{id}', 'put'], ['/api/guardrail/{id}', 'delete'],
        ['/api/guardrail/{id}/evaluate', 'post'], ['/api/guardrail/{id}/history', 'get'], ['/api/guardrail/{id}/history/diff', 'get'],
        ['/api/guardrail/{id}/history/{version}', 'get'], ['/api/guardrail/{id}/revert', 'post'],
      ] as const) t.ok(doc.paths[path]?.[method], `${method} ${path}`);
    });

    await t.test('the bundle carries live, enabled guardrails; disabling and deleting remove them', async (t) => {
      const g = (await api('POST', BASE, { name: 'Bundled', is_default: true, rules: [KEYWORD] })).json;
      const has = () => bundleGuardrails(sys).find((x) => x.id === g.id);
      await until(() => has() !== undefined, 5000, 'guardrail in bundle');
      t.same(has(), { id: g.id, name: 'Bundled', is_default: true, rules: [KEYWORD] });
      await api('PUT', `${BASE}/${g.id}`, { name: 'Bundled 2' });
      await until(() => has()?.name === 'Bundled 2', 5000, 'rename in bundle');
      await api('PUT', `${BASE}/${g.id}`, { enabled: false });
      await until(() => has() === undefined, 5000, 'disabled guardrail leaves the bundle');
      await api('PUT', `${BASE}/${g.id}`, { enabled: true });
      await until(() => has() !== undefined, 5000, 're-enabled guardrail returns');
      await api('DELETE', `${BASE}/${g.id}`);
      await until(() => has() === undefined, 5000, 'deleted guardrail leaves the bundle');
      t.pass('bundle followed every change');
    });
  });
});
