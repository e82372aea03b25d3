// Password guessing: after 10 failures for one email within 15 minutes this
// control plane answers 429 until the window passes; a success clears it.
// Per process: each replica counts on its own.
import { AppError } from '@agentwall/shared/errors';

const FAILS_ALLOWED = 10;
const WINDOW_MS = 15 * 60_000;
const MAX_TRACKED = 100_000;

export interface LoginThrottle {
  check(email: string, now?: number): void;
  fail(email: string, now?: number): void;
  succeed(email: string): void;
}

export function createLoginThrottle(): LoginThrottle {
  const failures = new Map<string, { count: number; since: number }>();
  return {
    check(email, now = Date.now()) {
      const f = failures.get(email.toLowerCase());
      if (!f) return;
      if (now - f.since > WINDOW_MS) {
        failures.delete(email.toLowerCase());
        return;
      }
      if (f.count >= FAILS_ALLOWED) {
        const retry = Math.ceil((f.since + WINDOW_MS - now) / 1000);
        throw new AppError('rate_limit_exceeded', 'Too many failed logins for this account; try again later.', { headers: { 'retry-after': String(retry) } });
      }
    },
    fail(email, now = Date.now()) {
      const key = email.toLowerCase();
      const f = failures.get(key);
      if (f && now - f.since <= WINDOW_MS) f.count++;
      else {
        if (failures.size >= MAX_TRACKED) failures.clear();
        failures.set(key, { count: 1, since: now });
      }
    },
    succeed(email) {
      failures.delete(email.toLowerCase());
    },
  };
}
