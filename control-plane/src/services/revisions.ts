// Wakes long-polling sidecars when a workspace's revision moves. One
// dedicated connection LISTENs; NOTIFY is sent by bumpRevision inside the
// changing transaction, so every replica wakes on commit.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Pool } from '../db/pool.js';

type Waiter = (revision: number) => void;

export interface RevisionHub {
  /** Resolves with the new revision, or undefined after timeoutMs or on close. */
  waitForChange(workspaceId: number, after: number, timeoutMs: number, signal?: AbortSignal): Promise<number | undefined>;
  close(): Promise<void>;
}

const CHANNEL = 'agentwall_revision';

export async function createRevisionHub(pool: Pool, log: Logger, current: (ws: number) => Promise<number | undefined>): Promise<RevisionHub> {
  const waiters = new Map<number, Set<Waiter>>();
  let client: pg.PoolClient | undefined;
  let closed = false;

  const onNotify = (msg: pg.Notification) => {
    if (msg.channel !== CHANNEL || !msg.payload) return;
    const [ws, rev] = msg.payload.split(':').map(Number);
    if (ws === undefined || rev === undefined) return;
    for (const w of waiters.get(ws) ?? []) w(rev);
  };

  // A lost LISTEN connection is re-established; waiters re-check the revision
  // on their own timeout, so a notification missed in the gap costs at most one poll.
  const connect = async (): Promise<void> => {
    if (closed) return;
    try {
      const c = await pool.connect();
      c.on('notification', onNotify);
      c.on('error', (err) => {
        log.warn({ err: { message: err.message } }, 'revision listener lost its connection');
        c.release(err);
        if (client === c) client = undefined;
        setTimeout(() => void connect(), 500).unref();
      });
      await c.query(`LISTEN ${CHANNEL}`);
      client = c;
      // Wake everyone so a change that happened while disconnected is seen.
      for (const [ws, set] of waiters) {
        const rev = await current(ws).catch(() => undefined);
        if (rev !== undefined) for (const w of set) w(rev);
      }
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'revision listener could not connect; retrying');
      setTimeout(() => void connect(), 1000).unref();
    }
  };
  await connect();

  return {
    async waitForChange(workspaceId, after, timeoutMs, signal) {
      return new Promise<number | undefined>((resolve) => {
        let set = waiters.get(workspaceId);
        if (!set) waiters.set(workspaceId, (set = new Set()));
        const finish = (rev: number | undefined) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          set.delete(waiter);
          if (set.size === 0) waiters.delete(workspaceId);
          resolve(rev);
        };
        const waiter: Waiter = (rev) => {
          if (rev > after) finish(rev);
        };
        const onAbort = () => finish(undefined);
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        signal?.addEventListener('abort', onAbort);
        set.add(waiter);
        // Close the race between the caller's read and our subscription.
        current(workspaceId).then((rev) => rev !== undefined && waiter(rev), () => {});
      });
    },
    async close() {
      closed = true;
      for (const set of waiters.values()) for (const w of set) w(Number.MAX_SAFE_INTEGER);
      waiters.clear();
      if (client) {
        const c = client;
        client = undefined;
        await c.query(`UNLISTEN ${CHANNEL}`).catch(() => {});
        c.release();
      }
    },
  };
}
