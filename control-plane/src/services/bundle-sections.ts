// One line per bundle section: the name the sidecar reads and the function
// that reads it inside the bundle's snapshot transaction.
import type { BundleRelayKey } from '@agentwall/shared/bundle';
import type { PoolClient } from '../db/pool.js';

type SectionReader = (db: PoolClient, workspaceId: number) => Promise<unknown>;

async function relayKeys(db: PoolClient, workspaceId: number): Promise<BundleRelayKey[]> {
  const r = await db.query<BundleRelayKey>(
    `SELECT id, name, key_hash, key_prefix, guardrail_ids, quota_limit, rate_limit_rpm, models
     FROM relay_keys WHERE workspace_id = $1 AND revoked_at IS NULL ORDER BY id`,
    [workspaceId],
  );
  return r.rows;
}

export const BUNDLE_SECTIONS: Record<string, SectionReader> = {
  relay_keys: relayKeys,
};
