// CONTRACT §5 and the spec's "Tool-server registration": validation, masking,
// rotation, probes, and the runtime registry.
import t from 'tap';
import { eachDatabase } from '../helpers/db.js';
import { startSystem } from '../helpers/system.js';
import { startMcpServer } from '../helpers/mcp-servers.js';
import { freePort } from '@agentwall/control-plane/db/embedded';

const TOKEN = 'canary-bearer-token-7Hq2Zp9Lw3';
const BASE = '/api/workspace/firewall/mcp_servers';

t.test('tool-server registrations', async (t) => {
  await eachDatabase(t, async (t, server) => {
    const sys = await startSystem(t, server);
    const admin = await sys.session();
    const api = (method: string, path: string, body?: unknown, token = admin) => sys.call('cp', method, path, { token, ...(body === undefined ? {} : { body }) });
    const upstream = await startMcpServer(t, { expectAuth: `Bearer ${TOKEN}` });

    await t.test('register a bearer server: 201, credential masked, has_credential true', async (t) => {
      const r = await api('POST', BASE, { name: 'tools', endpoint: upstream.url, auth_mode: 'bearer', auth_json: JSON.stringify({ token: TOKEN }), enabled: true });
      t.equal(r.status, 201);
      t.match(r.json, { name: 'tools', auth_mode: 'bearer', auth_json: JSON.stringify({ token: `****${TOKEN.slice(-4)}` }), has_credential: true, status: 'unknown', enabled: true });
      t.notMatch(r.text, TOKEN);
    });

    await t.test('rejections name the field with 400 invalid_request', async (t) => {
      const cases: Array<[unknown, string]> = [
        [{ name: 'my.tools', endpoint: upstream.url }, 'name'],
        [{ name: 'ok', endpoint: 'ftp://x' }, 'endpoint'],
        [{ name: 'ok', endpoint: 'not a url' }, 'endpoint'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'bearer' }, 'auth_json'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'bearer', auth_json: '{"token":""}' }, 'auth_json.token'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'bearer', auth_json: '{"token":"   "}' }, 'auth_json.token'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'oauth', auth_json: '{"client_id":"a","client_secret":"b"}' }, 'auth_json.client_id'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'oauth', auth_json: '{}' }, 'auth_json.access_token'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'basic', auth_json: '{"username":"u"}' }, 'auth_json.password'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'basic', auth_json: '[1,2]' }, 'auth_json'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'basic', auth_json: '{not json' }, 'auth_json'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'none', auth_json: '{"token":"x"}' }, 'auth_json'],
        [{ name: 'ok', endpoint: upstream.url, auth_mode: 'digest' }, 'auth_mode'],
        [{ name: 'ok', endpoint: upstream.url, enabled: 'yes' }, 'enabled'],
        [{ name: 'ok', endpoint: upstream.url, color: 'red' }, 'color'],
      ];
      for (const [body, field] of cases) {
        const r = await api('POST', BASE, body);
        t.equal(r.status, 400, `${JSON.stringify(body)} → 400`);
        t.equal(r.json?.error?.code, 'invalid_request');
        t.match(r.json?.error?.message, new RegExp(`^${field.replace('.', '\\.')}\\b`), `names ${field}`);
      }
      const oauth = await api('POST', BASE, { name: 'ok', endpoint: upstream.url, auth_mode: 'oauth', auth_json: '{}' });
      t.match(oauth.json.error.message, /client-credentials exchange is unavailable/);
    });

    await t.test('duplicate name in the workspace → 409 conflict; builtin is reserved', async (t) => {
      const dup = await api('POST', BASE, { name: 'tools', endpoint: upstream.url });
      t.equal(dup.status, 409);
      t.equal(dup.json.error.code, 'conflict');
      t.equal((await api('POST', BASE, { name: 'builtin', endpoint: upstream.url })).status, 409);
    });

    await t.test('list shows builtin first with no endpoint; probing it is 400', async (t) => {
      const list = await api('GET', BASE);
      t.equal(list.json.data[0].name, 'builtin');
      t.equal(list.json.data[0].endpoint, null);
      t.ok(list.json.data[0].tools.some((x: { name: string }) => x.name === 'time'));
      const p = await api('POST', `${BASE}/0/probe`);
      t.equal(p.status, 400);
      t.equal(p.json.error.code, 'invalid_request');
      t.notMatch(list.text, TOKEN);
    });

    const id = (await api('GET', BASE)).json.data.find((s: { name: string }) => s.name === 'tools').id;

    await t.test('probe answers ok after a real round trip with the decrypted credential', async (t) => {
      const before = upstream.received.length;
      const r = await api('POST', `${BASE}/${id}/probe`);
      t.equal(r.status, 200);
      t.match(r.json, { id, status: 'ok', tool_count: 4, latency_ms: Number, detail: String, probed_at: String });
      t.same([...r.json.tools].sort(), ['add', 'echo', 'hang', 'shell']);
      t.ok(upstream.received.slice(before).every((h) => h === `Bearer ${TOKEN}`), 'every request carried the credential');
      const read = await api('GET', `${BASE}/${id}`);
      t.match(read.json, { status: 'ok', last_probed_at: String });
      t.equal(read.json.tools.length, 4);
    });

    await t.test('echoing the masked value keeps the secret; a new value rotates it', async (t) => {
      const masked = (await api('GET', `${BASE}/${id}`)).json.auth_json;
      const kept = await api('PUT', `${BASE}/${id}`, { auth_json: masked, endpoint: upstream.url });
      t.equal(kept.status, 200);
      t.equal((await api('POST', `${BASE}/${id}/probe`)).json.status, 'ok', 'still authenticates');
      const rotated = await api('PUT', `${BASE}/${id}`, { auth_json: JSON.stringify({ token: 'a-wrong-token-for-rotation' }) });
      t.equal(rotated.json.auth_json, JSON.stringify({ token: '****tion' }));
      const down = await api('POST', `${BASE}/${id}/probe`);
      t.equal(down.json.status, 'down', 'wrong token → down');
      t.match(down.json.detail, /authentication failed/);
      t.notMatch(down.text, 'a-wrong-token-for-rotation');
      await api('PUT', `${BASE}/${id}`, { auth_json: { token: TOKEN } });
      t.equal((await api('POST', `${BASE}/${id}/probe`)).json.status, 'ok');
      const modeChange = await api('PUT', `${BASE}/${id}`, { auth_mode: 'oauth', auth_json: JSON.stringify({ access_token: `****${TOKEN.slice(-4)}` }) });
      t.equal(modeChange.status, 400, 'changing auth_mode needs a full new credential');
    });

    await t.test('probe answers down for a closed port', async (t) => {
      const port = await freePort();
      const r = await api('POST', BASE, { name: 'closed', endpoint: `http://127.0.0.1:${port}/mcp` });
      const p = await api('POST', `${BASE}/${r.json.id}/probe`);
      t.equal(p.json.status, 'down');
      t.match(p.json.detail, /could not connect/);
    });

    await t.test('probe answers degraded when listing fails or is slow', async (t) => {
      const flaky = await startMcpServer(t);
      const r = await api('POST', BASE, { name: 'flaky', endpoint: flaky.url });
      flaky.setListing('fail');
      const failed = await api('POST', `${BASE}/${r.json.id}/probe`);
      t.equal(failed.json.status, 'degraded');
      t.match(failed.json.detail, /listing failed/);
      flaky.setListing({ delayMs: 2200 });
      const slow = await api('POST', `${BASE}/${r.json.id}/probe`);
      t.equal(slow.json.status, 'degraded');
      t.match(slow.json.detail, /slow/);
      flaky.setListing('ok');
      t.equal((await api('POST', `${BASE}/${r.json.id}/probe`)).json.status, 'ok');
    });

    await t.test('probe falls back to legacy SSE for servers that only speak it', async (t) => {
      const legacy = await startMcpServer(t, { legacySse: true, expectAuth: 'Basic ' + Buffer.from('ann:s3cret-pass').toString('base64') });
      const r = await api('POST', BASE, { name: 'legacy', endpoint: legacy.url, auth_mode: 'basic', auth_json: { username: 'ann', password: 's3cret-pass' } });
      t.equal(r.json.auth_json, JSON.stringify({ username: 'ann', password: '****' }), 'short secrets mask fully; usernames stay readable');
      const p = await api('POST', `${BASE}/${r.json.id}/probe`);
      t.equal(p.json.status, 'ok', p.json.detail);
    });

    await t.test('roles: members read, developers change', async (t) => {
      await api('POST', '/api/admin/users', { email: 'member@example.com', password: 'password-123' });
      const users = await api('GET', '/api/workspace/members');
      void users;
      await api('PUT', '/api/workspace/members', { email: 'member@example.com', role: 'member' });
      const mt = (await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'member@example.com', password: 'password-123' } })).json.token;
      t.equal((await api('GET', BASE, undefined, mt)).status, 200);
      t.equal((await api('GET', `${BASE}/${id}`, undefined, mt)).status, 200);
      t.equal((await api('POST', BASE, { name: 'x', endpoint: upstream.url }, mt)).status, 403);
      t.equal((await api('POST', `${BASE}/${id}/probe`, undefined, mt)).status, 403);
      t.equal((await api('PUT', `${BASE}/${id}`, { enabled: false }, mt)).status, 403);
      t.equal((await api('DELETE', `${BASE}/${id}`, undefined, mt)).status, 403);
    });

    await t.test('runtime registry: enabled servers of the key\'s workspace only, no credentials', async (t) => {
      await api('PUT', `${BASE}/${id}`, { enabled: false });
      const reg = await sys.call('cp', 'GET', '/api/v1/firewall/mcp_servers', { token: sys.creds.gateway_key });
      t.equal(reg.status, 200);
      t.notOk(reg.json.data.some((s: { name: string }) => s.name === 'tools'), 'disabled server absent');
      t.ok(reg.json.data.every((s: Record<string, unknown>) => s['enabled'] === true && !('auth_json' in s)));
      await api('PUT', `${BASE}/${id}`, { enabled: true });
      const again = await sys.call('cp', 'GET', '/api/v1/firewall/mcp_servers', { token: sys.creds.gateway_key });
      t.ok(again.json.data.some((s: { name: string }) => s.name === 'tools'), 're-enabling restores it');
      t.equal((await sys.call('cp', 'GET', '/api/v1/firewall/mcp_servers', { token: admin })).status, 401, 'session refused');
      t.notMatch(again.text, TOKEN);
    });

    await t.test('another workspace, unknown ids and deleted servers are the uniform not-found', async (t) => {
      const other = await api('POST', '/api/workspaces', { name: 'other' });
      const hdr = { 'x-workspace-id': String(other.json.id) };
      const r = await sys.call('cp', 'GET', `${BASE}/${id}`, { token: admin, headers: hdr });
      const missing = await sys.call('cp', 'GET', `${BASE}/999999`, { token: admin, headers: { 'x-workspace-id': '1' } });
      t.equal(r.status, 404);
      t.same(r.json, missing.json);
      t.equal((await sys.call('cp', 'GET', `${BASE}/abc`, { token: admin, headers: hdr })).status, 404);
    });

    await t.test('the canary credential is in no response and no log line', async (t) => {
      t.notMatch(sys.seen.join('\n'), TOKEN);
      t.notMatch(sys.logs.join('\n'), TOKEN);
      t.notMatch(sys.seen.join('\n'), 's3cret-pass');
      const raw = await sys.cp.deps.pool.query('SELECT auth_enc FROM mcp_servers');
      t.notMatch(JSON.stringify(raw.rows), TOKEN, 'stored encrypted');
    });
  });
});
