// Pulls the signed config bundle: long-poll with If-None-Match, verify the
// EdDSA signature against the control plane's key set, compile, swap the
// snapshot atomically. Anything that fails verification or compilation is
// refused and the last good snapshot stays in force.
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { Logger } from 'pino';
import { SIDECAR_KEY_HEADER } from '@agentwall/shared/bundle';
import { compileSnapshot, type Snapshot } from './snapshot.js';

export interface BundleSyncOptions {
  controlPlaneUrl: string;
  gatewayKey: string;
  sidecarKeyHeader: string;
  log: Logger;
  waitSeconds: number;
  /** A pinned key set; without it the set is fetched from the control plane once and kept. */
  jwks?: JSONWebKeySet;
  onSwap?: (next: Snapshot, prev: Snapshot | undefined) => void;
  onRefused?: (reason: string) => void;
}

export interface BundleSync {
  current(): Snapshot | undefined;
  /** Resolves after the first verified bundle (or rejects on stop). */
  ready: Promise<Snapshot>;
  /** Applies a bundle (JWS) as if received; false when refused. */
  apply(jws: string): Promise<boolean>;
  start(): void;
  stop(): Promise<void>;
}

export function createBundleSync(opts: BundleSyncOptions): BundleSync {
  let snapshot: Snapshot | undefined;
  let etag: string | undefined;
  let jwks = opts.jwks;
  let stopped = false;
  let loop: Promise<void> | undefined;
  const abort = new AbortController();
  let markReady!: (s: Snapshot) => void;
  const ready = new Promise<Snapshot>((resolve) => (markReady = resolve));

  const base = opts.controlPlaneUrl.replace(/\/+$/, '');

  async function keySet(refresh: boolean): Promise<JSONWebKeySet> {
    if (jwks && (!refresh || opts.jwks)) return jwks;
    const res = await fetch(`${base}/api/v1/sidecar/jwks`, { signal: abort.signal });
    if (!res.ok) throw new Error(`jwks answered ${res.status}`);
    jwks = (await res.json()) as JSONWebKeySet;
    return jwks;
  }

  async function verify(jws: string): Promise<unknown> {
    const attempt = async (refresh: boolean) => {
      const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(await keySet(refresh)), { algorithms: ['EdDSA'] });
      if (protectedHeader.typ !== 'agentwall-bundle+jws') throw new Error('not a bundle');
      return JSON.parse(new TextDecoder().decode(payload)) as unknown;
    };
    try {
      return await attempt(false);
    } catch (err) {
      // An unknown kid may mean the control plane rotated its key: refetch once.
      if ((err as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY' && !opts.jwks) return attempt(true);
      throw err;
    }
  }

  async function apply(jws: string): Promise<boolean> {
    let next: Snapshot;
    try {
      next = compileSnapshot(await verify(jws));
    } catch (err) {
      const reason = err instanceof Error ? err.message : 'unverifiable';
      opts.log.warn({ reason }, 'config bundle refused; keeping the last good one');
      opts.onRefused?.(reason);
      return false;
    }
    const prev = snapshot;
    if (prev && (next.workspaceId !== prev.workspaceId || next.revision < prev.revision)) {
      opts.log.warn({ revision: next.revision, current: prev.revision }, 'config bundle refused: older revision or other workspace');
      opts.onRefused?.('rollback');
      return false;
    }
    snapshot = next;
    opts.onSwap?.(next, prev);
    markReady(next);
    return true;
  }

  async function pollOnce(): Promise<void> {
    const wait = snapshot ? opts.waitSeconds : 0;
    const headers: Record<string, string> = { authorization: `Bearer ${opts.gatewayKey}`, [SIDECAR_KEY_HEADER]: opts.sidecarKeyHeader };
    if (etag && snapshot) headers['if-none-match'] = etag;
    const timeout = AbortSignal.timeout((wait + 15) * 1000);
    const res = await fetch(`${base}/api/v1/sidecar/config?wait=${wait}`, { headers, signal: AbortSignal.any([abort.signal, timeout]) });
    if (res.status === 304) {
      await res.body?.cancel();
      return;
    }
    const text = await res.text();
    if (res.status !== 200) throw new Error(`config answered ${res.status}`);
    if (await apply(text)) etag = res.headers.get('etag') ?? undefined;
    else await delay(1000);
  }

  async function run(): Promise<void> {
    let backoff = 250;
    while (!stopped) {
      try {
        await pollOnce();
        backoff = 250;
      } catch (err) {
        if (stopped) break;
        opts.log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'config bundle fetch failed; keeping the last good one');
        await delay(backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }

  function delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      abort.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      }, { once: true });
    });
  }

  return {
    current: () => snapshot,
    ready,
    apply,
    start() {
      loop ??= run();
    },
    async stop() {
      stopped = true;
      abort.abort();
      await loop;
    },
  };
}
