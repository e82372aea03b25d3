// `agentwall` subcommands (CONTRACT §1). Only this file and the two main.ts
// modules read the environment or handle signals.
import { loadSettings, type Settings } from '@agentwall/shared/config';
import { createLogger } from '@agentwall/shared/log';
import { createKeyring } from '@agentwall/shared/crypto';
import { startControlPlane, openDatabase } from '@agentwall/control-plane/main';
import { startSidecar } from '@agentwall/proxy/main';
import { readBootstrap } from '@agentwall/control-plane/services/bootstrap';
import { createPool } from '@agentwall/control-plane/db/pool';
import { migrate } from '@agentwall/control-plane/db/migrate';
import { keyFilePath, loadKeyring, readKeyFile, writeKeyFile } from '@agentwall/control-plane/services/master-key';
import { reencryptAll } from '@agentwall/control-plane/services/rotation';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';

const HELP = `agentwall — tool firewall and model relay for AI agents

Usage: agentwall <command>

Commands:
  up                  control plane + sidecar + embedded database (npm start)
  control-plane       the control plane alone
  sidecar             the sidecar alone (AGENTWALL_CONTROL_PLANE_URL, AGENTWALL_GATEWAY_KEY)
  migrate             apply database migrations and exit
  rotate-master-key   re-encrypt every stored secret with the primary master key
  --help              this text

Settings come from the environment; see the README for the full list.
`;

type Closer = () => Promise<void>;

function onSignals(closers: Closer[]): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`\n${signal}: shutting down\n`);
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      Promise.allSettled(closers.map((c) => c())).then(() => {
        clearTimeout(force);
        resolve(0);
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

async function up(settings: Settings): Promise<number> {
  const started = Date.now();
  const sidecarUrl = `http://${settings.AGENTWALL_HOST}:${settings.AGENTWALL_SIDECAR_PORT}`;
  const cp = await startControlPlane(settings, { withSidecarKeys: true, sidecarUrl });
  const info = cp.bootstrap ?? (await readBootstrap(settings.dataDir));
  const gatewayKey = settings.AGENTWALL_GATEWAY_KEY ?? info?.gateway_key ?? undefined;
  if (!gatewayKey) {
    await cp.close();
    throw new Error('no gateway key for the local sidecar: set AGENTWALL_GATEWAY_KEY or restore bootstrap.json');
  }
  const sidecar = await startSidecar(settings, { controlPlaneUrl: cp.url, gatewayKey });
  await sidecar.deps.sync.ready;
  const lines = [
    '',
    `agentwall is up in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    `  control plane  ${cp.url}`,
    `  sidecar        ${sidecar.url}`,
  ];
  if (cp.bootstrap) {
    lines.push(
      '  first start: these credentials are shown once (also in bootstrap.json, mode 0600)',
      `  admin login    ${cp.bootstrap.admin_email} / ${cp.bootstrap.admin_password ?? '(from AGENTWALL_ADMIN_PASSWORD)'}`,
      `  relay key      ${cp.bootstrap.relay_key ?? ''}`,
      `  gateway key    ${cp.bootstrap.gateway_key ?? ''}`,
    );
  } else {
    lines.push(`  credentials    see ${settings.dataDir}/bootstrap.json`);
  }
  process.stdout.write(lines.join('\n') + '\n\n');
  // Both at once: the control plane answers its long-polls at once, which
  // lets the sidecar's forwarded ones finish instead of being cut.
  return onSignals([() => sidecar.close(), () => cp.close()]);
}

async function controlPlane(settings: Settings): Promise<number> {
  const cp = await startControlPlane(settings);
  if (cp.bootstrap) {
    process.stdout.write(`first start: admin ${cp.bootstrap.admin_email} / ${cp.bootstrap.admin_password ?? '(from AGENTWALL_ADMIN_PASSWORD)'} (also in bootstrap.json)\n`);
  }
  return onSignals([() => cp.close()]);
}

async function sidecar(settings: Settings): Promise<number> {
  const s = await startSidecar(settings);
  return onSignals([() => s.close()]);
}

async function migrateOnly(settings: Settings): Promise<number> {
  const log = createLogger({ name: 'migrate', level: settings.AGENTWALL_LOG_LEVEL });
  const db = await openDatabase(settings, log);
  const pool = createPool(db.url, log);
  try {
    const applied = await migrate(pool);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  } finally {
    await pool.end();
    await db.embedded?.stop();
  }
}

async function rotateMasterKey(settings: Settings): Promise<number> {
  const log = createLogger({ name: 'rotate-master-key', level: settings.AGENTWALL_LOG_LEVEL });
  const { ring, source } = await loadKeyring(process.env, settings.dataDir);
  let active = ring;
  const file = keyFilePath(settings.dataDir);
  if (source === 'file') {
    // A generated key file: mint a new primary, keep the old ones to decrypt, drop them after.
    const old = await readKeyFile(file);
    const kid = `k${Date.now().toString(36)}`;
    const next = [{ kid, key: new Uint8Array(randomBytes(32)) }, ...old];
    await writeKeyFile(file, next);
    active = createKeyring(next);
  }
  const db = await openDatabase(settings, log);
  const pool = createPool(db.url, log);
  try {
    await migrate(pool);
    const r = await reencryptAll(pool, active);
    if (source === 'file' && existsSync(file)) await writeKeyFile(file, [active.primary]);
    process.stdout.write(`re-encrypted ${r.rewritten} secret(s) with key "${active.primary.kid}"; ${r.already} already used it\n`);
    return 0;
  } finally {
    await pool.end();
    await db.embedded?.stop();
  }
}

const COMMANDS: Record<string, (s: Settings) => Promise<number>> = {
  up,
  'control-plane': controlPlane,
  sidecar,
  migrate: migrateOnly,
  'rotate-master-key': rotateMasterKey,
};

export async function main(argv: string[]): Promise<number> {
  const [cmd] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(HELP);
    return cmd ? 0 : 1;
  }
  const run = COMMANDS[cmd];
  if (!run) {
    process.stderr.write(`unknown command "${cmd}"\n\n${HELP}`);
    return 2;
  }
  try {
    return await run(loadSettings(process.env));
  } catch (err) {
    process.stderr.write(`agentwall ${cmd}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
