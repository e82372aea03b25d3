// One dedicated LISTEN connection per control plane for every channel it
// cares about. NOTIFY is sent inside the changing transaction, so each
// replica wakes on commit. A lost connection is re-established and every
// subscriber is told to re-check (a notification may have been missed).
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Pool } from '../db/pool.js';

/** `payload` undefined: re-check (reconnected); `closing`: the hub is shutting down, stop waiting. */
export type NotifyHandler = (payload: string | undefined, closing?: boolean) => void;

export interface NotifyHub {
  subscribe(channel: string, handler: NotifyHandler): () => void;
  close(): Promise<void>;
}

export async function createNotifyHub(pool: Pool, log: Logger, channels: readonly string[]): Promise<NotifyHub> {
  const handlers = new Map<string, Set<NotifyHandler>>(channels.map((c) => [c, new Set()]));
  let client: pg.PoolClient | undefined;
  let closed = false;

  const onNotify = (msg: pg.Notification) => {
    for (const h of handlers.get(msg.channel) ?? []) h(msg.payload);
  };
  const wakeAll = (closing = false) => {
    for (const set of handlers.values()) for (const h of [...set]) h(undefined, closing);
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    try {
      const c = await pool.connect();
      c.on('notification', onNotify);
      c.on('error', (err) => {
        log.warn({ reason: err.message }, 'notification listener lost its connection; reconnecting');
        if (client === c) client = undefined;
        c.release(err);
        setTimeout(() => void connect(), 500).unref();
      });
      for (const ch of channels) await c.query(`LISTEN ${ch}`);
      client = c;
      wakeAll();
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'notification listener could not connect; retrying');
      setTimeout(() => void connect(), 1000).unref();
    }
  };
  await connect();

  return {
    subscribe(channel, handler) {
      const set = handlers.get(channel);
      if (!set) throw new Error(`not listening on ${channel}`);
      set.add(handler);
      return () => void set.delete(handler);
    },
    async close() {
      closed = true;
      wakeAll(true);
      for (const set of handlers.values()) set.clear();
      if (client) {
        const c = client;
        client = undefined;
        await c.query('UNLISTEN *').catch(() => {});
        c.release();
      }
    },
  };
}

/**
 * Waits until `check()` yields a value, re-checking on each notification of
 * `channel` whose payload passes `relevant`; undefined after timeoutMs, on
 * abort or on close.
 */
export async function waitFor<T>(
  hub: NotifyHub,
  channel: string,
  relevant: (payload: string | undefined) => boolean,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve) => {
    let done = false;
    let checking = false;
    let again = false;
    const finish = (v: T | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve(v);
    };
    const run = async () => {
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      try {
        do {
          again = false;
          const v = await check().catch(() => undefined);
          if (v !== undefined) return finish(v);
        } while (again && !done);
      } finally {
        checking = false;
      }
    };
    const onAbort = () => finish(undefined);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const unsubscribe = hub.subscribe(channel, (payload, closing) => {
      if (closing) finish(undefined);
      else if (payload === undefined || relevant(payload)) void run();
    });
    signal?.addEventListener('abort', onAbort);
    // Subscribed first, then checked: a change between the two is not lost.
    void run();
  });
}
