// Starts the real control plane and sidecar in-process on loopback, on a
// fresh database, with every log line captured so tests can grep for
// secrets. Nothing of the project is mocked.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSettings, type Settings } from '@agentwall/shared/config';
import { createLogger } from '@agentwall/shared/log';
import { startControlPlane, type ControlPlane } from '@agentwall/control-plane/main';
import { startSidecar, type Sidecar } from '@agentwall/proxy/main';
import type { BootstrapInfo } from '@agentwall/control-plane/services/bootstrap';
import { freshDatabase } from './db.js';
import type { T } from './tap.js';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  // Tests read arbitrary fields of many shapes; the assertions are the checks.
  json: any;
}

export async function http(base: string, method: string, path: string, opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export interface System {
  cp: ControlPlane;
  sidecar: Sidecar;
  creds: BootstrapInfo & { admin_password: string; relay_key: string; gateway_key: string };
  logs: string[];
  settings: Settings;
  /** Every response body seen through `call`, for canary greps. */
  seen: string[];
  session(): Promise<string>;
  call(target: 'cp' | 'sidecar', method: string, path: string, opts?: Parameters<typeof http>[3]): Promise<HttpResult>;
}

export async function startSystem(t: T, serverUrl: string, opts: { adminPassword?: string; env?: Record<string, string> } = {}): Promise<System> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'agentwall-sys-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const dbUrl = await freshDatabase(t, serverUrl);
  const password = opts.adminPassword ?? 'correct horse battery staple';
  const settings = loadSettings({
    AGENTWALL_DATA_DIR: dataDir,
    DATABASE_URL: dbUrl,
    AGENTWALL_ADMIN_PASSWORD: password,
    AGENTWALL_LOG_LEVEL: 'debug',
    AGENTWALL_BUNDLE_WAIT_S: '30',
    AGENTWALL_MCP_CALL_TIMEOUT_MS: '2000',
    ...(opts.env ?? {}),
  });
  const logs: string[] = [];
  const destination = { write: (line: string) => void logs.push(line) };
  const cp = await startControlPlane(settings, { log: createLogger({ name: 'control-plane', level: 'debug', destination }), withSidecarKeys: true, port: 0 });
  t.teardown(() => cp.close());
  const info = cp.bootstrap;
  if (!info?.relay_key || !info.gateway_key) throw new Error('bootstrap did not create keys');
  const sidecar = await startSidecar(settings, { controlPlaneUrl: cp.url, gatewayKey: info.gateway_key, log: createLogger({ name: 'sidecar', level: 'debug', destination }), port: 0, egressPort: 0 });
  t.teardown(() => sidecar.close());
  await sidecar.deps.sync.ready;
  const seen: string[] = [];
  const sys: System = {
    cp,
    sidecar,
    settings,
    logs,
    seen,
    creds: { ...info, admin_password: password, relay_key: info.relay_key, gateway_key: info.gateway_key },
    async session() {
      const r = await http(cp.url, 'POST', '/api/auth/login', { body: { email: info.admin_email, password } });
      if (r.status !== 200) throw new Error(`login failed: ${r.status}`);
      return r.json.token as string;
    },
    async call(target, method, p, o) {
      const r = await http(target === 'cp' ? cp.url : sidecar.url, method, p, o);
      seen.push(r.text);
      return r;
    },
  };
  return sys;
}

/** Waits until cond() is true, polling every few ms; throws after timeoutMs. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}
