// Secrets never appear in a response, a log line or an error (CONTRACT §5, DESIGN "Secrets").
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { eachDatabase } from '../helpers/db.js';
import { startSystem } from '../helpers/system.js';

const CANARY = 'canary-Zq7Wv3Lp9Xk2';

t.test('canary secrets', async (t) => {
  await eachDatabase(t, async (t, server) => {
    const sys = await startSystem(t, server, { adminPassword: `${CANARY}-admin-password` });
    const admin = await sys.session();
    const masterFile = await readFile(path.join(sys.settings.dataDir, 'master.keys'), 'utf8');
    const masterKey = masterFile.trim().split(':')[1]!;
    const ws = { 'x-workspace-id': String(sys.creds.workspace_id) };

    // Exercise every surface, including failures that could echo input back.
    await sys.call('cp', 'POST', '/api/auth/login', { body: { email: 'admin@localhost', password: `${CANARY}-wrong` } });
    await sys.call('cp', 'POST', '/api/auth/login', { body: { email: `${CANARY}@x.io`, password: CANARY } });
    await sys.call('cp', 'POST', '/api/auth/login', { raw: `{"email":"${CANARY}` });
    await sys.call('cp', 'POST', '/api/admin/users', { token: admin, body: { email: 'u@example.com', password: `${CANARY}-user-password` } });
    await sys.call('cp', 'POST', '/api/admin/users', { token: admin, body: { email: 'u@example.com', password: `${CANARY}-user-password` } });
    await sys.call('cp', 'POST', '/api/admin/users', { token: admin, body: { email: 'u2@example.com', password: 5, note: CANARY } });
    await sys.call('cp', 'GET', '/api/workspaces', { token: `${CANARY}.not.a.jwt` });
    await sys.call('sidecar', 'GET', '/v1/models', { token: `sk-svc-${CANARY}` });
    await sys.call('sidecar', 'GET', `/v1/models?key=${CANARY}`);
    await sys.call('sidecar', 'GET', '/api/workspaces', { token: `${CANARY}` });
    await sys.call('cp', 'POST', '/api/workspace/relay_keys', { token: admin, headers: ws, body: { name: 'n', models: [CANARY.repeat(20)] } });
    await sys.call('cp', 'GET', '/api/workspace/relay_keys', { token: admin, headers: ws });
    await sys.call('cp', 'GET', '/api/v1/sidecar/config', { token: sys.creds.gateway_key });
    await sys.call('cp', 'GET', '/api/openapi.json');
    await sys.call('cp', 'GET', '/metrics');
    await sys.call('sidecar', 'GET', '/metrics');

    await t.test('no response carries the admin password, a user password or the master key', async (t) => {
      const all = sys.seen.join('\n');
      t.notMatch(all, `${CANARY}-admin-password`);
      t.notMatch(all, `${CANARY}-user-password`);
      t.notMatch(all, `${CANARY}-wrong`);
      t.notMatch(all, masterKey);
    });

    await t.test('no log line carries a password, a presented credential or the master key', async (t) => {
      t.ok(sys.logs.length > 0, 'logs were captured');
      const all = sys.logs.join('\n');
      t.notMatch(all, CANARY);
      t.notMatch(all, masterKey);
      t.notMatch(all, sys.creds.relay_key);
      t.notMatch(all, sys.creds.gateway_key);
      t.notMatch(all, admin);
    });

    await t.test('the database holds hashes and envelopes, never clear credentials', async (t) => {
      const dump = await sys.cp.deps.pool.query(`SELECT
        (SELECT json_agg(u) FROM users u)::text AS users,
        (SELECT json_agg(k) FROM relay_keys k)::text AS relay,
        (SELECT json_agg(g) FROM gateway_keys g)::text AS gateway,
        (SELECT json_agg(s) FROM instance_secrets s)::text AS secrets`);
      const text = JSON.stringify(dump.rows);
      t.notMatch(text, CANARY);
      t.notMatch(text, sys.creds.relay_key);
      t.notMatch(text, sys.creds.gateway_key);
    });
  });
});
