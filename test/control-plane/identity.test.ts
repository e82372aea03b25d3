// CONTRACT §2: login, roles, X-Workspace-Id, and each credential on its own surfaces.
import t from 'tap';
import { eachDatabase } from '../helpers/db.js';
import { startSystem } from '../helpers/system.js';

t.test('identity and credentials', async (t) => {
  await eachDatabase(t, async (t, server) => {
    const sys = await startSystem(t, server);
    const admin = await sys.session();
    const { relay_key: relay, gateway_key: gateway } = sys.creds;

    await t.test('login returns a 12 h session token and the user', async (t) => {
      const r = await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'ADMIN@localhost', password: sys.creds.admin_password } });
      t.equal(r.status, 200);
      t.match(r.json, { token: /^eyJ/, user: { email: 'admin@localhost', is_admin: true } });
      const hours = (Date.parse(r.json.expires_at) - Date.now()) / 3_600_000;
      t.ok(hours > 11.9 && hours <= 12, 'expires in 12 h');
    });

    await t.test('denies a wrong password and an unknown email with the same 401', async (t) => {
      const a = await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'admin@localhost', password: 'nope-nope' } });
      const b = await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'ghost@localhost', password: 'nope-nope' } });
      t.equal(a.status, 401);
      t.same(a.json, b.json);
      t.equal(a.json.error.code, 'unauthorized');
    });

    await t.test('denies password guessing: the 11th failure in a row answers 429 with Retry-After', async (t) => {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        statuses.push((await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'victim@example.com', password: `guess-${i}` } })).status);
      }
      t.same(statuses, [...Array(10).fill(401), 429]);
      const r = await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'VICTIM@example.com', password: 'guess' } });
      t.equal(r.status, 429, 'case-insensitive');
      t.ok(Number(r.headers.get('retry-after')) > 0);
      t.equal((await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'admin@localhost', password: sys.creds.admin_password } })).status, 200, 'other accounts unaffected');
    });

    await t.test('denies a relay key on every /api route', async (t) => {
      for (const path of ['/api/workspaces', '/api/workspace/relay_keys', '/api/v1/sidecar/config']) {
        const r = await sys.call('cp', 'GET', path, { token: relay });
        t.equal(r.status, 401, path);
        t.equal(r.json.error.type, 'api_error');
      }
    });

    await t.test('denies a gateway key on console routes and a session on sidecar routes', async (t) => {
      t.equal((await sys.call('cp', 'GET', '/api/workspaces', { token: gateway })).status, 401);
      t.equal((await sys.call('cp', 'GET', '/api/v1/sidecar/config', { token: admin })).status, 401);
      t.equal((await sys.call('cp', 'GET', '/api/v1/sidecar/config', { token: gateway })).status, 200);
    });

    await t.test('denies a session token and a gateway key on /v1', async (t) => {
      const a = await sys.call('sidecar', 'GET', '/v1/models', { token: admin });
      const b = await sys.call('sidecar', 'GET', '/v1/models', { token: gateway });
      t.equal(a.status, 401);
      t.equal(a.json.error.code, 'invalid_api_key');
      t.equal(b.status, 401);
      t.equal(a.json.error.type, 'openai_error');
    });

    await t.test('a relay key works as Bearer (with or without prefix), x-api-key, x-goog-api-key and ?key=', async (t) => {
      const bare = relay.slice('sk-svc-'.length);
      const forms: Array<[string, Record<string, string>]> = [
        ['/v1/models', { authorization: `Bearer ${relay}` }],
        ['/v1/models', { authorization: `Bearer ${bare}` }],
        ['/v1/models', { 'x-api-key': relay }],
        ['/v1/models', { 'x-goog-api-key': relay }],
        [`/v1/models?key=${bare}`, {}],
      ];
      for (const [path, headers] of forms) {
        const r = await sys.call('sidecar', 'GET', path, { headers });
        t.equal(r.status, 200, JSON.stringify(Object.keys(headers)));
        t.same(r.json, { object: 'list', data: [] });
      }
    });

    await t.test('relay and gateway keys are shown once and listed by prefix only', async (t) => {
      const created = await sys.call('cp', 'POST', '/api/workspace/relay_keys', { token: admin, body: { name: 'ci', rate_limit_rpm: 60 } });
      t.equal(created.status, 201);
      t.match(created.json.key, /^sk-svc-[0-9A-Za-z]{40}$/);
      const list = await sys.call('cp', 'GET', '/api/workspace/relay_keys', { token: admin });
      t.notMatch(list.text, created.json.key);
      t.notMatch(list.text, /key_hash/);
      t.ok(list.json.data.some((k: { key_prefix: string }) => created.json.key.startsWith(k.key_prefix)));
      const read = await sys.call('cp', 'GET', `/api/workspace/relay_keys/${created.json.id}`, { token: admin });
      t.match(read.json, { id: created.json.id, quota_used: 0, rate_limit_rpm: 60 });
      t.equal(read.json.key, undefined);
      const gk = await sys.call('cp', 'POST', '/api/workspace/gateway_keys', { token: admin, body: { name: 'edge' } });
      t.match(gk.json.key, /^gk-svc-[0-9A-Za-z]{40}$/);
      t.notMatch((await sys.call('cp', 'GET', '/api/workspace/gateway_keys', { token: admin })).text, gk.json.key);
    });

    await t.test('relay keys attach only live guardrails of their workspace', async (t) => {
      const g = await sys.call('cp', 'POST', '/api/guardrail', { token: admin, body: { name: 'pii', rules: [{ id: 'e', type: 'pii', stage: 'both', action: 'mask', entities: { email: 'mask' } }] } });
      t.equal(g.status, 201, g.text);
      const ok = await sys.call('cp', 'POST', '/api/workspace/relay_keys', { token: admin, body: { name: 'guarded', guardrail_ids: [g.json.id] } });
      t.equal(ok.status, 201);
      t.same(ok.json.guardrail_ids, [g.json.id]);
      const bad = await sys.call('cp', 'POST', '/api/workspace/relay_keys', { token: admin, body: { name: 'x', guardrail_ids: [g.json.id, 987654] } });
      t.equal(bad.status, 400);
      t.match(bad.json.error.message, /^guardrail_ids: no guardrail 987654/);
      const upd = await sys.call('cp', 'PUT', `/api/workspace/relay_keys/${ok.json.id}`, { token: admin, body: { guardrail_ids: [424242] } });
      t.equal(upd.status, 400);
    });

    await t.test('access tokens work like sessions until revoked', async (t) => {
      const created = await sys.call('cp', 'POST', '/api/auth/tokens', { token: admin, body: { name: 'ci', expires_in_days: 1 } });
      t.equal(created.status, 201);
      t.match(created.json.token, /^awt-/);
      t.equal((await sys.call('cp', 'GET', '/api/workspaces', { token: created.json.token })).status, 200);
      t.equal((await sys.call('cp', 'DELETE', `/api/auth/tokens/${created.json.id}`, { token: admin })).status, 204);
      t.equal((await sys.call('cp', 'GET', '/api/workspaces', { token: created.json.token })).status, 401);
    });

    await t.test('roles: member reads, developer+ writes, admin+ manages members', async (t) => {
      const mk = async (email: string) => (await sys.call('cp', 'POST', '/api/admin/users', { token: admin, body: { email, password: 'password-123' } })).json;
      const member = await mk('m@example.com');
      const dev = await mk('d@example.com');
      t.equal((await sys.call('cp', 'PUT', '/api/workspace/members', { token: admin, body: { user_id: member.id, role: 'member' } })).status, 200);
      t.equal((await sys.call('cp', 'PUT', '/api/workspace/members', { token: admin, body: { email: 'd@example.com', role: 'developer' } })).status, 200);
      const login = async (email: string) => (await sys.call('cp', 'POST', '/api/auth/login', { body: { email, password: 'password-123' } })).json.token as string;
      const mt = await login('m@example.com');
      const dt = await login('d@example.com');
      t.equal((await sys.call('cp', 'GET', '/api/workspace/relay_keys', { token: mt })).status, 200, 'member reads');
      const denied = await sys.call('cp', 'POST', '/api/workspace/relay_keys', { token: mt, body: { name: 'x' } });
      t.equal(denied.status, 403, 'member cannot create a relay key');
      t.equal(denied.json.error.code, 'forbidden');
      t.equal((await sys.call('cp', 'POST', '/api/workspace/relay_keys', { token: dt, body: { name: 'x' } })).status, 201, 'developer creates');
      t.equal((await sys.call('cp', 'PUT', '/api/workspace/members', { token: dt, body: { user_id: member.id, role: 'admin' } })).status, 403, 'developer cannot manage members');
      t.equal((await sys.call('cp', 'POST', '/api/admin/users', { token: dt, body: { email: 'z@example.com', password: 'password-123' } })).status, 403, 'only instance admins create users');
      const last = await sys.call('cp', 'PUT', '/api/workspace/members', { token: admin, body: { user_id: 1, role: 'admin' } });
      t.equal(last.status, 409, 'the last owner stays');
      void dev;
    });

    await t.test('X-Workspace-Id: optional with one workspace, required with several, 403 outside', async (t) => {
      const other = await sys.call('cp', 'POST', '/api/workspaces', { token: admin, body: { name: 'second' } });
      t.equal(other.status, 201);
      const ambiguous = await sys.call('cp', 'GET', '/api/workspace/relay_keys', { token: admin });
      t.equal(ambiguous.status, 400);
      t.match(ambiguous.json.error.message, /X-Workspace-Id/);
      const scoped = await sys.call('cp', 'GET', '/api/workspace/relay_keys', { token: admin, headers: { 'x-workspace-id': String(other.json.id) } });
      t.same(scoped.json, { data: [], has_more: false });
      const dev = (await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'd@example.com', password: 'password-123' } })).json.token;
      const outside = await sys.call('cp', 'GET', '/api/workspace/relay_keys', { token: dev, headers: { 'x-workspace-id': String(other.json.id) } });
      t.equal(outside.status, 403);
      const garbage = await sys.call('cp', 'GET', '/api/workspace/relay_keys', { token: dev, headers: { 'x-workspace-id': '1 OR 1=1' } });
      t.equal(garbage.status, 400);
    });

    await t.test('bad input gets the envelope, never a 500', async (t) => {
      const cases: Array<[string, string, Parameters<typeof sys.call>[3], number, string]> = [
        ['POST', '/api/auth/login', { raw: '{"email":', headers: { 'content-type': 'application/json' } }, 400, 'invalid_request'],
        ['POST', '/api/auth/login', { body: { email: 5, password: 'x' } }, 400, 'invalid_request'],
        ['POST', '/api/auth/login', { body: { email: 'a@b.c', password: 'x', admin: true } }, 400, 'invalid_request'],
        ['POST', '/api/auth/login', { body: [1, 2] }, 400, 'invalid_request'],
        ['POST', '/api/auth/login', { raw: 'null' }, 400, 'invalid_request'],
        ['POST', '/api/workspace/relay_keys', { token: admin, headers: { 'x-workspace-id': '1' }, body: { name: 'x', quota_limit: -1 } }, 400, 'invalid_request'],
        ['POST', '/api/auth/login', { raw: JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1_100_000) }) }, 413, 'request_too_large'],
        ['GET', '/api/nope', {}, 404, 'not_found'],
        ['DELETE', '/api/workspaces', { token: admin }, 405, 'method_not_allowed'],
        ['GET', '/api/workspace/relay_keys/abc', { token: admin, headers: { 'x-workspace-id': '1' } }, 404, 'not_found'],
        ['GET', '/api/workspace/relay_keys/99999999999999999999', { token: admin, headers: { 'x-workspace-id': '1' } }, 404, 'not_found'],
        ['GET', '/api/workspaces', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }, 401, 'unauthorized'],
        ['GET', '/api/workspaces', { token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' }, 401, 'unauthorized'],
      ];
      for (const [method, path, opts, status, code] of cases) {
        for (const target of ['cp', 'sidecar'] as const) {
          const r = await sys.call(target, method, path, opts);
          t.equal(r.status, status, `${target} ${method} ${path} → ${status}`);
          t.equal(r.json?.error?.code, code, `${target} ${method} ${path} → ${code}`);
        }
      }
      const unknownField = await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'a@b.c', password: 'x', admin: true } });
      t.match(unknownField.json.error.message, /admin/, 'names the unknown field');
      const wrongType = await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 5, password: 'x' } });
      t.match(wrongType.json.error.message, /^email:/, 'names the field');
      t.equal((await sys.call('sidecar', 'GET', '/nowhere')).json.error.code, 'not_found');
      t.equal((await sys.call('sidecar', 'POST', '/v1/models', { token: relay })).status, 405);
    });

    await t.test('openapi lists every route with its request schema', async (t) => {
      const doc = (await sys.call('cp', 'GET', '/api/openapi.json')).json;
      for (const [path, method] of [['/api/auth/login', 'post'], ['/api/workspace/relay_keys/{id}', 'put'], ['/api/v1/sidecar/config', 'get'], ['/api/workspace/members', 'put']] as const) {
        t.ok(doc.paths[path]?.[method], `${method} ${path}`);
      }
      t.same(doc.paths['/api/auth/login'].post.requestBody.content['application/json'].schema.required.sort(), ['email', 'password']);
      t.equal(doc.paths['/api/auth/login'].post.requestBody.content['application/json'].schema.additionalProperties, false);
      const sidecarDoc = (await sys.call('sidecar', 'GET', '/openapi.json')).json;
      t.ok(sidecarDoc.paths['/v1/models']);
    });
  });
});
