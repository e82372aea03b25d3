// Database targets for the suites: the embedded server always (started once
// by `npm test`, or here per file when tap runs alone), and the machine's
// PostgreSQL when TEST_DATABASE_URL is set. Each test gets a fresh database.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { T } from './tap.js';
import { startEmbeddedPostgres } from '@agentwall/control-plane/db/embedded';

export interface DbTarget {
  name: 'embedded' | 'postgres';
  serverUrl: string;
}

let ownEmbedded: Promise<string> | undefined;

async function embeddedUrl(t: T): Promise<string> {
  const shared = process.env['AGENTWALL_TEST_EMBEDDED_URL'];
  if (shared) return shared;
  ownEmbedded ??= (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agentwall-pg-'));
    const db = await startEmbeddedPostgres(dir, { database: 'postgres' });
    t.teardown(async () => {
      await db.stop();
      await rm(dir, { recursive: true, force: true });
    });
    return db.url;
  })();
  return ownEmbedded;
}

export async function dbTargets(t: T): Promise<DbTarget[]> {
  const targets: DbTarget[] = [{ name: 'embedded', serverUrl: await embeddedUrl(t) }];
  const external = process.env['TEST_DATABASE_URL'];
  if (external) targets.push({ name: 'postgres', serverUrl: external });
  return targets;
}

/** Creates an empty database on the target server, dropped at teardown. */
export async function freshDatabase(t: T, serverUrl: string): Promise<string> {
  const name = `aw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await c.end();
  });
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs `fn` once per database target, each as its own subtest. */
export async function eachDatabase(t: T, fn: (t: T, serverUrl: string) => Promise<void>): Promise<void> {
  for (const target of await dbTargets(t)) {
    await t.test(target.name, (tt) => fn(tt, target.serverUrl));
  }
}
