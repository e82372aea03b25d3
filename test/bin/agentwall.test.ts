// CONTRACT §1: `agentwall up` on the embedded database, restart persistence,
// graceful SIGTERM, and master-key rotation, through the real CLI.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@agentwall/control-plane/db/embedded';
import { http } from '../helpers/system.js';

const BIN = path.resolve('bin/agentwall.js');

interface Running {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string>): Running {
  let out = '';
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

async function waitFor(r: Running, pattern: RegExp, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!pattern.test(r.out())) {
    if (Date.now() > end || r.child.exitCode !== null) throw new Error(`did not see ${pattern}: ${r.out().slice(-2000)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

t.test('agentwall up, restart, SIGTERM and rotate-master-key', async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'agentwall-cli-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const cpPort = await freePort();
  const scPort = await freePort();
  const egPort = await freePort();
  const env = { AGENTWALL_DATA_DIR: dataDir, AGENTWALL_CP_PORT: String(cpPort), AGENTWALL_SIDECAR_PORT: String(scPort), AGENTWALL_EGRESS_PORT: String(egPort), AGENTWALL_LOG_LEVEL: 'warn' };
  const cp = `http://127.0.0.1:${cpPort}`;
  const sc = `http://127.0.0.1:${scPort}`;
  let token = '';
  let creds: { admin_email: string; admin_password: string; relay_key: string; gateway_key: string } | undefined;

  await t.test('first start comes up in under 20 s and prints the admin login, relay key and gateway key', async (t) => {
    const started = Date.now();
    const up = run(['up'], env);
    t.teardown(() => void up.child.kill('SIGKILL'));
    await waitFor(up, /gateway key\s+gk-svc-/, 20_000);
    const secs = (Date.now() - started) / 1000;
    t.comment(`cold start to credentials printed: ${secs.toFixed(1)} s`);
    t.ok(secs < 20);
    const printed = up.out();
    creds = JSON.parse(await readFile(path.join(dataDir, 'bootstrap.json'), 'utf8'));
    t.equal(((await stat(path.join(dataDir, 'bootstrap.json'))).mode & 0o777), 0o600, 'bootstrap.json is 0600');
    t.equal(((await stat(path.join(dataDir, 'master.keys'))).mode & 0o777), 0o600, 'generated master key is 0600');
    t.match(printed, creds!.admin_password);
    t.match(printed, creds!.relay_key);
    t.match(printed, creds!.gateway_key);
    for (const base of [cp, sc]) {
      const login = await http(base, 'POST', '/api/auth/login', { body: { email: creds!.admin_email, password: creds!.admin_password } });
      t.equal(login.status, 200, `login through ${base}`);
      token = login.json.token;
      t.equal((await http(base, 'GET', '/api/v1/sidecar/config', { token: creds!.gateway_key })).status, 200, `gateway key through ${base}`);
    }
    t.equal((await http(sc, 'GET', '/v1/models', { token: creds!.relay_key })).status, 200, 'relay key on the sidecar');
    t.equal((await http(cp, 'POST', '/api/workspace/relay_keys', { token, body: { name: 'second' } })).status, 201);

    // SIGTERM with a long-poll in flight: it is answered, and the process exits well within 10 s.
    const etag = (await http(sc, 'GET', '/api/v1/sidecar/config', { token: creds!.gateway_key })).headers.get('etag')!;
    const poll = http(sc, 'GET', '/api/v1/sidecar/config?wait=30', { token: creds!.gateway_key, headers: { 'if-none-match': etag } });
    await new Promise((r) => setTimeout(r, 300));
    const stopAt = Date.now();
    up.child.kill('SIGTERM');
    const code = await up.exited;
    const polled = await poll.catch(() => undefined);
    t.equal(code, 0, 'clean exit');
    t.ok(Date.now() - stopAt < 10_000, `stopped in ${Date.now() - stopAt} ms`);
    t.ok(polled && [200, 304].includes(polled.status), 'the in-flight long-poll was answered');
  });

  await t.test('a second start on the same data dir keeps users, keys and secrets', async (t) => {
    const up = run(['up'], env);
    t.teardown(() => void up.child.kill('SIGKILL'));
    await waitFor(up, /agentwall is up/, 20_000);
    t.notMatch(up.out(), /first start/);
    t.equal((await http(cp, 'GET', '/api/workspaces', { token })).status, 200, 'a session from the first run is still valid (session key kept)');
    t.equal((await http(sc, 'GET', '/v1/models', { token: creds!.relay_key })).status, 200, 'relay key kept');
    const keys = await http(cp, 'GET', '/api/workspace/relay_keys', { token });
    t.equal(keys.json.data.length, 2, 'both relay keys kept');
    up.child.kill('SIGTERM');
    t.equal(await up.exited, 0);
  });

  await t.test('rotate-master-key re-encrypts every secret and the system still starts', async (t) => {
    const before = (await readFile(path.join(dataDir, 'master.keys'), 'utf8')).trim();
    const rot = run(['rotate-master-key'], env);
    t.equal(await rot.exited, 0, rot.out());
    t.match(rot.out(), /re-encrypted [1-9]\d* secret/);
    const after = (await readFile(path.join(dataDir, 'master.keys'), 'utf8')).trim();
    t.not(after, before);
    t.equal(after.split('\n').length, 1, 'the old key is dropped');
    const up = run(['up'], env);
    t.teardown(() => void up.child.kill('SIGKILL'));
    await waitFor(up, /agentwall is up/, 20_000);
    t.equal((await http(cp, 'GET', '/api/workspaces', { token })).status, 200, 'session key decrypts under the new master key');
    up.child.kill('SIGTERM');
    t.equal(await up.exited, 0);
  });

  await t.test('--help lists the commands; an unknown command fails', async (t) => {
    const help = run(['--help'], {});
    t.equal(await help.exited, 0);
    for (const c of ['up', 'control-plane', 'sidecar', 'migrate', 'rotate-master-key']) t.match(help.out(), c);
    const bad = run(['frobnicate'], {});
    t.equal(await bad.exited, 2);
  });
});
