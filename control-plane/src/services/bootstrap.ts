// First start: an instance admin, the `default` workspace, and (under `up`)
// a relay key and a gateway key for the local sidecar, written once to
// <data>/bootstrap.json (mode 0600).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBase62 } from '@agentwall/shared/crypto';
import { withTransaction, type Pool } from '../db/pool.js';
import { countUsers } from '../db/queries/users.js';
import { insertWorkspace, upsertMember } from '../db/queries/workspaces.js';
import { createGatewayKey, createRelayKey, createUser } from './identity.js';
import { initWorkspaceFirewall } from './firewall.js';

export interface BootstrapInfo {
  admin_email: string;
  admin_password: string | null;
  workspace_id: number;
  relay_key: string | null;
  gateway_key: string | null;
  control_plane_url: string;
  sidecar_url: string | null;
}

export async function readBootstrap(dataDir: string): Promise<BootstrapInfo | undefined> {
  const file = path.join(dataDir, 'bootstrap.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(await readFile(file, 'utf8')) as BootstrapInfo;
}

/** Creates the first admin and workspace when the database has no user; returns what was created. */
export async function bootstrap(
  pool: Pool,
  opts: { dataDir: string; email: string; password: string | undefined; withKeys: boolean; controlPlaneUrl: string; sidecarUrl: string | null },
): Promise<BootstrapInfo | undefined> {
  const created = await withTransaction(pool, async (db) => {
    // Serialise concurrent first starts of several replicas.
    await db.query('SELECT pg_advisory_xact_lock($1)', [0x61776273]);
    if ((await countUsers(db)) > 0) return undefined;
    const password = opts.password ?? randomBase62(20);
    const user = await createUser(db, opts.email, password, true);
    const ws = await insertWorkspace(db, 'default');
    await upsertMember(db, ws.id, user.id, 'owner');
    await initWorkspaceFirewall(db, ws.id);
    const relay = opts.withKeys ? await createRelayKey(db, ws.id, user.id, { name: 'local agent', guardrail_ids: [], quota_limit: null, rate_limit_rpm: null, models: null }) : undefined;
    const gateway = opts.withKeys ? await createGatewayKey(db, ws.id, user.id, 'local sidecar') : undefined;
    return {
      admin_email: opts.email,
      admin_password: opts.password === undefined ? password : null,
      workspace_id: ws.id,
      relay_key: relay?.key ?? null,
      gateway_key: gateway?.key ?? null,
      control_plane_url: opts.controlPlaneUrl,
      sidecar_url: opts.sidecarUrl,
    } satisfies BootstrapInfo;
  });
  if (created) await writeFile(path.join(opts.dataDir, 'bootstrap.json'), JSON.stringify(created, null, 2) + '\n', { mode: 0o600 });
  return created;
}
