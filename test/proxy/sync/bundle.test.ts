// DESIGN "Config bundle": a change reaches a running sidecar in well under a
// second; a sidecar keeps its last verified bundle when the control plane is
// gone; a bundle with a broken signature is refused.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import { createLogger } from '@agentwall/shared/log';
import { encryptSecret } from '@agentwall/shared/crypto';
import { createBundleSync } from '@agentwall/proxy/sync/bundle-client';
import { createSecretOpener } from '@agentwall/proxy/secrets';
import { compileSnapshot } from '@agentwall/proxy/sync/snapshot';
import { evaluate } from '@agentwall/shared/guardrails/index';
import { signBundle, parseSidecarKey } from '@agentwall/control-plane/services/bundle';
import { eachDatabase } from '../../helpers/db.js';
import { http as request, startSystem, until } from '../../helpers/system.js';

t.test('config bundle', async (t) => {
  await eachDatabase(t, async (t, server) => {
    const sys = await startSystem(t, server);
    const admin = await sys.session();
    const relay = sys.creds.relay_key;
    const models = () => request(sys.sidecar.url, 'GET', '/v1/models', { token: relay });

    await t.test('the bundle is an EdDSA JWS verifiable with the published key set', async (t) => {
      const r = await request(sys.cp.url, 'GET', '/api/v1/sidecar/config', { token: sys.creds.gateway_key });
      t.equal(r.headers.get('content-type'), 'application/jose');
      t.match(r.headers.get('etag'), /^"ws\d+-r\d+"$/);
      const jwks = (await request(sys.cp.url, 'GET', '/api/v1/sidecar/jwks')).json;
      const { payload } = await compactVerify(r.text, createLocalJWKSet(jwks));
      const bundle = JSON.parse(new TextDecoder().decode(payload));
      t.equal(bundle.workspace_id, sys.creds.workspace_id);
      t.equal(bundle.relay_keys.length, 1);
      t.notMatch(r.text, relay, 'the relay key itself is never in the bundle');
      t.equal(decodeProtectedHeader(r.text).alg, 'EdDSA');
    });

    await t.test('If-None-Match without change answers 304 after the wait', async (t) => {
      const first = await request(sys.cp.url, 'GET', '/api/v1/sidecar/config', { token: sys.creds.gateway_key });
      const etag = first.headers.get('etag')!;
      const started = Date.now();
      const again = await request(sys.cp.url, 'GET', '/api/v1/sidecar/config?wait=1', { token: sys.creds.gateway_key, headers: { 'if-none-match': etag } });
      t.equal(again.status, 304);
      t.ok(Date.now() - started >= 900, 'held for the wait');
    });

    await t.test('a client that abandons a long-poll through the sidecar frees the control plane\'s waiter', async (t) => {
      const first = await request(sys.sidecar.url, 'GET', '/api/v1/sidecar/config', { token: sys.creds.gateway_key });
      const gauge = async () => Number(/agentwall_bundle_long_polls\{[^}]*\} (\d+)/.exec((await request(sys.cp.url, 'GET', '/metrics')).text)?.[1] ?? NaN);
      const base = await gauge();
      const abort = new AbortController();
      const pending = fetch(`${sys.sidecar.url}/api/v1/sidecar/config?wait=30`, { headers: { authorization: `Bearer ${sys.creds.gateway_key}`, 'if-none-match': first.headers.get('etag')! }, signal: abort.signal }).catch(() => 'aborted');
      await until(async () => (await gauge()) === base + 1, 3000, 'long-poll waiting at the control plane');
      abort.abort();
      t.equal(await pending, 'aborted');
      await until(async () => (await gauge()) === base, 3000, 'waiter released');
      t.pass('the forwarded request was cancelled upstream');
    });

    await t.test('a relay key created through the console API authenticates at the sidecar in under 1 s', async (t) => {
      const started = performance.now();
      const created = await request(sys.cp.url, 'POST', '/api/workspace/relay_keys', { token: admin, body: { name: 'fresh' } });
      t.equal(created.status, 201);
      await until(async () => (await request(sys.sidecar.url, 'GET', '/v1/models', { token: created.json.key })).status === 200, 2000, 'new key accepted');
      const ms = performance.now() - started;
      t.comment(`console change → sidecar enforcement: ${ms.toFixed(1)} ms`);
      t.ok(ms < 1000, `propagated in ${ms.toFixed(1)} ms`);
    });

    await t.test('a revoked relay key is refused by the sidecar in under 1 s', async (t) => {
      const created = await request(sys.cp.url, 'POST', '/api/workspace/relay_keys', { token: admin, body: { name: 'doomed' } });
      await until(async () => (await request(sys.sidecar.url, 'GET', '/v1/models', { token: created.json.key })).status === 200, 2000);
      const started = performance.now();
      t.equal((await request(sys.cp.url, 'DELETE', `/api/workspace/relay_keys/${created.json.id}`, { token: admin })).status, 204);
      await until(async () => (await request(sys.sidecar.url, 'GET', '/v1/models', { token: created.json.key })).status === 401, 2000, 'revoked key refused');
      t.ok(performance.now() - started < 1000);
    });

    await t.test('a rate limit set through the console API is enforced from the bundle', async (t) => {
      const created = await request(sys.cp.url, 'POST', '/api/workspace/relay_keys', { token: admin, body: { name: 'slow' } });
      const key = created.json.key as string;
      await until(async () => (await request(sys.sidecar.url, 'GET', '/v1/models', { token: key })).status === 200, 2000);
      await request(sys.cp.url, 'PUT', `/api/workspace/relay_keys/${created.json.id}`, { token: admin, body: { rate_limit_rpm: 2 } });
      const rev = sys.sidecar.deps.sync.current()!.revision;
      await until(() => sys.sidecar.deps.sync.current()!.revision > rev, 2000);
      const statuses: number[] = [];
      let limited: Awaited<ReturnType<typeof request>> | undefined;
      for (let i = 0; i < 3; i++) {
        const r = await request(sys.sidecar.url, 'GET', '/v1/models', { token: key });
        statuses.push(r.status);
        if (r.status === 429) limited = r;
      }
      t.same(statuses, [200, 200, 429]);
      t.equal(limited?.json.error.code, 'rate_limit_exceeded');
      t.ok(Number(limited?.headers.get('retry-after')) >= 1);
    });

    await t.test('secrets in a bundle are sealed to the sidecar key and open only there', async (t) => {
      const opener = await createSecretOpener();
      const other = await createSecretOpener();
      const deps = sys.cp.deps;
      const prepared = { workspace_id: 1, revision: 1, sections: { tool_servers: [{ name: 'x', credential: { $secret: await encryptSecret(deps.keyring, 'canary-sealed-9f2') } }] } };
      const jws = await signBundle(deps, prepared, await parseSidecarKey(opener.publicHeader));
      t.notMatch(jws, /canary/);
      const body = JSON.parse(Buffer.from(jws.split('.')[1]!, 'base64url').toString('utf8'));
      t.notMatch(JSON.stringify(body), /canary/);
      const sealed = body.tool_servers[0].credential;
      t.equal(await opener.open(sealed), 'canary-sealed-9f2');
      await t.rejects(other.open(sealed), 'another sidecar cannot open it');
      const withheld = JSON.parse(Buffer.from((await signBundle(deps, prepared, undefined)).split('.')[1]!, 'base64url').toString('utf8'));
      t.equal(withheld.tool_servers[0].credential, null, 'without a sidecar key the secret is withheld');
      await t.rejects(parseSidecarKey(Buffer.from(JSON.stringify({ kty: 'oct', k: 'AAAA' })).toString('base64url')), /X25519 or P-256/);
    });

    await t.test('denies a bundle with a broken signature and keeps the last good one', async (t) => {
      const good = await request(sys.cp.url, 'GET', '/api/v1/sidecar/config', { token: sys.creds.gateway_key });
      const jwks = (await request(sys.cp.url, 'GET', '/api/v1/sidecar/jwks')).json;
      // An attacker between sidecar and control plane: real key set, tampered bundle.
      const [h, p, s] = good.text.split('.') as [string, string, string];
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
      payload.relay_keys.push({ ...payload.relay_keys[0], id: 999, key_hash: '0'.repeat(64) });
      payload.revision += 100;
      const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
      const flipped = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
      const mitm = http.createServer((req, res) => {
        if (req.url?.startsWith('/api/v1/sidecar/jwks')) return void res.end(JSON.stringify(jwks));
        res.writeHead(200, { 'content-type': 'application/jose', etag: '"ws1-r999"' });
        res.end(forged);
      });
      await new Promise<void>((r) => mitm.listen(0, '127.0.0.1', r));
      t.teardown(() => new Promise<void>((r) => mitm.close(() => r())));
      const refused: string[] = [];
      const sync = createBundleSync({
        controlPlaneUrl: `http://127.0.0.1:${(mitm.address() as AddressInfo).port}`,
        gatewayKey: sys.creds.gateway_key,
        sidecarKeyHeader: (await createSecretOpener()).publicHeader,
        log: createLogger({ name: 'test', level: 'silent' }),
        waitSeconds: 1,
        onRefused: (r) => refused.push(r),
      });
      t.ok(await sync.apply(good.text), 'the genuine bundle is accepted');
      const before = sync.current();
      t.notOk(await sync.apply(forged), 'a bundle whose payload was changed is refused');
      t.notOk(await sync.apply(flipped), 'a bundle whose signature was changed is refused');
      t.notOk(await sync.apply('not.a.jws'), 'garbage is refused');
      sync.start();
      await until(() => refused.length >= 4, 3000, 'the polled forged bundle is refused too');
      await sync.stop();
      t.equal(sync.current(), before, 'the last good snapshot stays in force');
      t.equal(sync.current()?.relayKeysByHash.has('0'.repeat(64)), false);
    });

    await t.test('guardrails arrive compiled; a bundle whose guardrail rules do not compile is refused whole', async (t) => {
      const g = await request(sys.cp.url, 'POST', '/api/guardrail', { token: admin, body: { name: 'mask emails', rules: [{ id: 'mail', type: 'pii', stage: 'both', action: 'mask', entities: { email: 'mask' } }] } });
      t.equal(g.status, 201, g.text);
      await until(() => sys.sidecar.deps.sync.current()!.guardrails.has(g.json.id), 3000, 'compiled guardrail in the snapshot');
      const compiled = sys.sidecar.deps.sync.current()!.guardrails.get(g.json.id)!.compiled;
      t.equal(evaluate(compiled, 'write to ann@example.com', 'input').masked_text, 'write to [REDACTED:EMAIL]');
      const base = { workspace_id: 1, revision: 1, issued_at: new Date().toISOString(), relay_keys: [] };
      t.throws(() => compileSnapshot({ ...base, guardrails: [{ id: 9, name: 'bad', is_default: false, rules: [{ id: 'r', type: 'regex', stage: 'input', action: 'block', pattern: '(a)\\1' }] }] }));
      t.throws(() => compileSnapshot({ ...base, guardrails: 'nope' }));
    });

    await t.test('denies an older revision replayed after a newer one', async (t) => {
      const older = await request(sys.cp.url, 'GET', '/api/v1/sidecar/config', { token: sys.creds.gateway_key });
      await request(sys.cp.url, 'POST', '/api/workspace/relay_keys', { token: admin, body: { name: 'bump' } });
      const newer = await request(sys.cp.url, 'GET', '/api/v1/sidecar/config', { token: sys.creds.gateway_key });
      const sync = createBundleSync({ controlPlaneUrl: sys.cp.url, gatewayKey: sys.creds.gateway_key, sidecarKeyHeader: '', log: createLogger({ name: 'test', level: 'silent' }), waitSeconds: 1 });
      t.ok(await sync.apply(newer.text));
      t.notOk(await sync.apply(older.text), 'rollback refused');
    });

    await t.test('with the control plane stopped the sidecar keeps authenticating relay keys', async (t) => {
      t.equal((await models()).status, 200);
      await sys.cp.close();
      t.equal((await request(sys.sidecar.url, 'GET', '/readyz')).status, 200, 'still ready on its last bundle');
      t.equal((await models()).status, 200, 'known key still accepted');
      t.equal((await request(sys.sidecar.url, 'GET', '/v1/models', { token: 'sk-svc-' + 'x'.repeat(40) })).status, 401, 'unknown key still refused');
      const api = await request(sys.sidecar.url, 'GET', '/api/workspaces', { token: admin });
      t.equal(api.status, 502, '/api forward reports the control plane unreachable');
      t.equal(api.json.error.code, 'upstream_error');
    });
  });
});
