// Relay-key authentication from the snapshot alone: no network call per
// request. Accepted forms (CONTRACT §2): Authorization: Bearer with or
// without the sk-svc- prefix, x-api-key, x-goog-api-key, ?key=.
import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import type { BundleRelayKey } from '@agentwall/shared/bundle';
import { AppError } from '@agentwall/shared/errors';
import type { Snapshot } from './sync/snapshot.js';

const PREFIX = 'sk-svc-';

export function presentedRelayKey(req: IncomingMessage, url: URL): string | undefined {
  const auth = req.headers.authorization;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m?.[1]) return m[1];
  }
  const header = req.headers['x-api-key'] ?? req.headers['x-goog-api-key'];
  if (typeof header === 'string' && header) return header.trim();
  return url.searchParams.get('key') ?? undefined;
}

export function authenticateRelayKey(snapshot: Snapshot, presented: string | undefined): BundleRelayKey {
  if (!presented) throw new AppError('invalid_api_key', 'Missing relay key: send Authorization: Bearer sk-svc-….');
  if (presented.startsWith('gk-svc-') || presented.startsWith('awt-')) {
    throw new AppError('invalid_api_key', 'Only relay keys (sk-svc-…) are accepted on /v1 routes.');
  }
  const full = presented.startsWith(PREFIX) ? presented : PREFIX + presented;
  const key = snapshot.relayKeysByHash.get(createHash('sha256').update(full).digest('hex'));
  if (!key) throw new AppError('invalid_api_key', 'Unknown or revoked relay key.');
  return key;
}
