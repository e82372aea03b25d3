// One line per bundle section: the name the sidecar reads and the function
// that reads it inside the bundle's snapshot transaction.
import type { BundleRelayKey, BundleToolServer } from '@agentwall/shared/bundle';
import type { PoolClient } from '../db/pool.js';
import { firewallSection } from './firewall.js';
import { bundleGuardrails } from '../db/queries/guardrails.js';

type SectionReader = (db: PoolClient, workspaceId: number) => Promise<unknown>;

async function relayKeys(db: PoolClient, workspaceId: number): Promise<BundleRelayKey[]> {
  const r = await db.query<BundleRelayKey>(
    `SELECT id, name, key_hash, key_prefix, guardrail_ids, quota_limit, rate_limit_rpm, models
     FROM relay_keys WHERE workspace_id = $1 AND revoked_at IS NULL ORDER BY id`,
    [workspaceId],
  );
  return r.rows;
}

/** Enabled servers only: a disabled server's credential never leaves the control plane. */
async function toolServers(db: PoolClient, workspaceId: number): Promise<Array<Omit<BundleToolServer, 'credential'> & { credential: { $secret: string } | null }>> {
  const r = await db.query<{ id: number; name: string; endpoint: string; auth_mode: BundleToolServer['auth_mode']; auth_enc: string | null; updated_at: Date; pinned_tools: Record<string, string> | null }>(
    'SELECT id, name, endpoint, auth_mode, auth_enc, updated_at, pinned_tools FROM mcp_servers WHERE workspace_id = $1 AND enabled ORDER BY id',
    [workspaceId],
  );
  return r.rows.map((s) => ({
    id: s.id,
    name: s.name,
    endpoint: s.endpoint,
    auth_mode: s.auth_mode,
    credential: s.auth_enc ? { $secret: s.auth_enc } : null,
    version: `${s.id}:${s.updated_at.toISOString()}`,
    pinned_tools: s.pinned_tools,
  }));
}

export const BUNDLE_SECTIONS: Record<string, SectionReader> = {
  relay_keys: relayKeys,
  tool_servers: toolServers,
  firewall: firewallSection,
  guardrails: bundleGuardrails,
};
