// The sidecar's process edge: settings, sockets, bundle sync, shutdown.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Settings } from '@agentwall/shared/config';
import { createLogger } from '@agentwall/shared/log';
import { createSidecar, type SidecarDeps } from './server.js';
import { createBundleSync } from './sync/bundle-client.js';
import { createApiForwarder } from './forward.js';
import { createSidecarMetrics } from './metrics.js';
import { createSecretOpener, type SecretOpener } from './secrets.js';
import { createGateway, toolServers, toolSetFingerprint } from './mcp/gateway.js';
import { createUpstreamPool } from './mcp/upstream.js';
import type { ToolCallHook } from './mcp/hook.js';
import { createSpool, type Spool } from './spool/spool.js';
import { createControlPlaneClient } from './control-plane-client.js';
import { createFirewallRuntime, type FirewallRuntime } from './firewall/runtime.js';
import { createMcpFirewallHook } from './firewall/surfaces/mcp.js';
import { createEgressProxy } from './firewall/surfaces/egress.js';
import path from 'node:path';

export interface Sidecar {
  url: string;
  egressPort: number;
  firewall: FirewallRuntime;
  spool: Spool;
  deps: SidecarDeps;
  /** Replaces the tool-call hook (the firewall plugs in here). */
  setToolHook(next: ToolCallHook): void;
  close(): Promise<void>;
}

export async function startSidecar(
  settings: Settings,
  opts: { controlPlaneUrl?: string; gatewayKey?: string; log?: Logger; port?: number; egressPort?: number; callTimeoutMs?: number; secrets?: SecretOpener } = {},
): Promise<Sidecar> {
  const log = opts.log ?? createLogger({ name: 'sidecar', level: settings.AGENTWALL_LOG_LEVEL });
  const cpUrl = opts.controlPlaneUrl ?? settings.AGENTWALL_CONTROL_PLANE_URL;
  const gatewayKey = opts.gatewayKey ?? settings.AGENTWALL_GATEWAY_KEY;
  if (!cpUrl) throw new Error('invalid setting AGENTWALL_CONTROL_PLANE_URL: required for the sidecar');
  if (!gatewayKey) throw new Error('invalid setting AGENTWALL_GATEWAY_KEY: required for the sidecar');
  const metrics = createSidecarMetrics();
  const secrets = opts.secrets ?? (await createSecretOpener());
  const cp = createControlPlaneClient(cpUrl, gatewayKey);
  const spool = createSpool({ dir: path.join(settings.dataDir, 'spool', 'sidecar'), log, ship: (events) => cp.shipAudit(events) });
  const firewall = createFirewallRuntime({ log, spool, cp });
  let hook: ToolCallHook = createMcpFirewallHook(firewall);
  let gateway: ReturnType<typeof createGateway> | undefined;
  const pool = createUpstreamPool({ secrets, log, onToolsChanged: () => gateway?.notifyToolsChanged() });
  const sync = createBundleSync({
    controlPlaneUrl: cpUrl,
    gatewayKey,
    sidecarKeyHeader: secrets.publicHeader,
    log,
    waitSeconds: settings.AGENTWALL_BUNDLE_WAIT_S,
    onSwap: (next, prev) => {
      metrics.bundleRevision.set(next.revision);
      firewall.onSnapshot(next);
      pool.retain(toolServers(next));
      if (prev && toolSetFingerprint(prev) !== toolSetFingerprint(next)) gateway?.notifyToolsChanged();
      log.info({ revision: next.revision }, 'config bundle in force');
    },
    onRefused: () => metrics.bundleRefused.inc(),
  });
  const forwarder = createApiForwarder(cpUrl, log);
  gateway = createGateway({ log, snapshot: () => sync.current(), pool, hook: () => hook, callTimeoutMs: opts.callTimeoutMs ?? settings.AGENTWALL_MCP_CALL_TIMEOUT_MS });
  const deps: SidecarDeps = { log, sync, forwarder, metrics, secrets, gateway };
  const handle = createSidecar(deps);
  const server = http.createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? settings.AGENTWALL_SIDECAR_PORT, settings.AGENTWALL_HOST, () => resolve());
  });
  sync.start();
  const egress = createEgressProxy({ log, snapshot: () => sync.current(), runtime: firewall });
  const egressPort = await egress.listen(opts.egressPort ?? settings.AGENTWALL_EGRESS_PORT, settings.AGENTWALL_HOST);
  const addr = server.address() as AddressInfo;
  const host = settings.AGENTWALL_HOST.includes(':') ? `[${settings.AGENTWALL_HOST}]` : settings.AGENTWALL_HOST;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${addr.port}`;
  log.info({ url }, 'sidecar listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    egressPort,
    firewall,
    spool,
    deps,
    setToolHook(next) {
      hook = next;
    },
    close() {
      closing ??= (async () => {
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Keep-alive connections whose last request finishes during shutdown go idle later.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const timer = setTimeout(() => server.closeAllConnections(), 8_000);
        await sync.stop();
        await gateway?.close();
        await egress.close();
        await done;
        clearTimeout(timer);
        clearInterval(sweep);
        forwarder.close();
        await pool.close();
        await spool.close();
      })();
      return closing;
    },
  };
}
