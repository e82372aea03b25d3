// The control plane's process edge: settings, database, sockets, shutdown.
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Settings } from '@agentwall/shared/config';
import { createLogger } from '@agentwall/shared/log';
import { createApp } from './app.js';
import type { Deps } from './deps.js';
import { createPool } from './db/pool.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { currentRevision } from './db/queries/workspaces.js';
import { createMetrics } from './metrics.js';
import { loadKeyring } from './services/master-key.js';
import { loadInstanceKeys } from './services/instance-keys.js';
import { createRevisionHub, REVISION_CHANNEL } from './services/revisions.js';
import { createNotifyHub } from './services/notify.js';
import { APPROVAL_CHANNEL } from './services/approvals.js';
import { startJobs } from './jobs/index.js';
import { createLoginThrottle } from './services/login-throttle.js';
import { bootstrap, type BootstrapInfo } from './services/bootstrap.js';

export interface ControlPlane {
  url: string;
  deps: Deps;
  bootstrap: BootstrapInfo | undefined;
  close(): Promise<void>;
}

export interface DatabaseHandle {
  url: string;
  embedded: EmbeddedDatabase | undefined;
}

export async function openDatabase(settings: Settings, log: Logger): Promise<DatabaseHandle> {
  if (settings.DATABASE_URL) return { url: settings.DATABASE_URL, embedded: undefined };
  const embedded = await startEmbeddedPostgres(settings.dataDir, { log: (line) => log.debug({ pg: line }, 'embedded postgres') });
  return { url: embedded.url, embedded };
}

export async function startControlPlane(
  settings: Settings,
  opts: { log?: Logger; withSidecarKeys?: boolean; sidecarUrl?: string | null; port?: number } = {},
): Promise<ControlPlane> {
  const log = opts.log ?? createLogger({ name: 'control-plane', level: settings.AGENTWALL_LOG_LEVEL });
  await mkdir(settings.dataDir, { recursive: true, mode: 0o700 });
  const { ring } = await loadKeyring(process.env, settings.dataDir);
  const db = await openDatabase(settings, log);
  const pool = createPool(db.url, log, 20);
  try {
    await migrate(pool);
    const keys = await loadInstanceKeys(pool, ring);
    const notify = await createNotifyHub(pool, log, [REVISION_CHANNEL, APPROVAL_CHANNEL]);
    const revisions = createRevisionHub(notify, (ws) => currentRevision(pool, ws));
    const deps: Deps = { pool, keyring: ring, log, keys, notify, revisions, metrics: createMetrics(), settings, loginThrottle: createLoginThrottle() };
    const jobs = startJobs(deps);
    const server = http.createServer(createApp(deps).callback());
    server.keepAliveTimeout = 65_000;
    server.requestTimeout = 0; // long-polls run up to 60 s; handlers bound their own waits
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? settings.AGENTWALL_CP_PORT, settings.AGENTWALL_HOST, () => resolve());
    });
    const addr = server.address() as AddressInfo;
    const url = `http://${hostForUrl(settings.AGENTWALL_HOST)}:${addr.port}`;
    const info = await bootstrap(pool, {
      dataDir: settings.dataDir,
      email: settings.AGENTWALL_ADMIN_EMAIL,
      password: settings.AGENTWALL_ADMIN_PASSWORD,
      withKeys: opts.withSidecarKeys ?? false,
      controlPlaneUrl: url,
      sidecarUrl: opts.sidecarUrl ?? null,
    });
    log.info({ url }, 'control plane listening');
    let closing: Promise<void> | undefined;
    return {
      url,
      deps,
      bootstrap: info,
      close() {
        closing ??= (async () => {
          // Stop accepting, wake long-polls so they answer now, let in-flight requests finish.
          const done = new Promise<void>((resolve) => server.close(() => resolve()));
          await jobs.stop();
          await notify.close();
          server.closeIdleConnections();
          // Keep-alive connections whose last request finishes during shutdown go idle later.
          const sweep = setInterval(() => server.closeIdleConnections(), 50);
          const timer = setTimeout(() => server.closeAllConnections(), 8_000);
          await done;
          clearTimeout(timer);
          clearInterval(sweep);
          await pool.end();
          await db.embedded?.stop();
        })();
        return closing;
      },
    };
  } catch (err) {
    await pool.end().catch(() => {});
    await db.embedded?.stop();
    throw err;
  }
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
