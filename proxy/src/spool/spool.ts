// A durable local spool for audit events: each event is appended to a file
// before anything else happens, and a shipper sends batches to the control
// plane, deleting a batch only after it was accepted. A control-plane outage
// (or a sidecar restart) loses nothing; the control plane ingests each
// event once (idempotent per event_id).
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

export interface SpoolEvent {
  event_id: string;
  kind: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

export interface Spool {
  record(kind: string, data: Record<string, unknown>): void;
  /** Ships everything spooled so far; resolves true when the spool is empty. */
  flush(): Promise<boolean>;
  pending(): number;
  close(): Promise<void>;
}

const BATCH = 500;

export function createSpool(opts: { dir: string; log: Logger; ship: (events: SpoolEvent[]) => Promise<void>; intervalMs?: number }): Spool {
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const current = path.join(opts.dir, 'events.jsonl');
  let shipping: Promise<boolean> | undefined;

  const batches = () => readdirSync(opts.dir).filter((f) => /^batch-\d+-[a-z0-9-]+\.jsonl$/.test(f)).sort();

  async function shipAll(): Promise<boolean> {
    // Seal the open file into a batch so appends continue in a fresh one.
    if (existsSync(current)) renameSync(current, path.join(opts.dir, `batch-${Date.now()}-${randomUUID()}.jsonl`));
    for (const file of batches()) {
      const full = path.join(opts.dir, file);
      const events = readFileSync(full, 'utf8').split('\n').filter(Boolean).flatMap((line) => {
        try {
          return [JSON.parse(line) as SpoolEvent];
        } catch {
          return []; // a torn last line after a crash
        }
      });
      try {
        for (let i = 0; i < events.length; i += BATCH) await opts.ship(events.slice(i, i + BATCH));
      } catch (err) {
        opts.log.warn({ reason: (err as Error).message, pending: events.length }, 'audit shipping failed; kept in the spool');
        return false;
      }
      unlinkSync(full);
    }
    return true;
  }

  const flush = () => {
    shipping ??= shipAll().finally(() => (shipping = undefined));
    return shipping;
  };
  const timer = setInterval(() => void flush(), opts.intervalMs ?? 1000);
  timer.unref();

  return {
    record(kind, data) {
      const event: SpoolEvent = { event_id: `sc_${randomUUID()}`, kind, occurred_at: new Date().toISOString(), data };
      appendFileSync(current, JSON.stringify(event) + '\n', { mode: 0o600 });
    },
    flush,
    pending() {
      let n = 0;
      for (const f of [...batches(), ...(existsSync(current) ? ['events.jsonl'] : [])]) n += readFileSync(path.join(opts.dir, f), 'utf8').split('\n').filter(Boolean).length;
      return n;
    },
    async close() {
      clearInterval(timer);
      await flush().catch(() => false);
    },
  };
}
