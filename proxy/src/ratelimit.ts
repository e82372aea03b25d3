// Per-key requests-per-minute as a token bucket (capacity = rpm, refilled
// continuously), in memory: each sidecar enforces its own share.
import { AppError } from '@agentwall/shared/errors';

interface Bucket {
  tokens: number;
  at: number;
  rpm: number;
}

export interface RateLimiter {
  take(keyId: number, rpm: number | null, now?: number): void;
}

export function createRateLimiter(maxKeys = 100_000): RateLimiter {
  const buckets = new Map<number, Bucket>();
  return {
    take(keyId, rpm, now = Date.now()) {
      if (rpm === null) return;
      let b = buckets.get(keyId);
      if (!b || b.rpm !== rpm) {
        if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value as number);
        b = { tokens: rpm, at: now, rpm };
        buckets.set(keyId, b);
      }
      b.tokens = Math.min(rpm, b.tokens + ((now - b.at) * rpm) / 60_000);
      b.at = now;
      if (b.tokens < 1) {
        const retry = Math.max(1, Math.ceil(((1 - b.tokens) * 60) / rpm));
        throw new AppError('rate_limit_exceeded', `Rate limit of ${rpm} requests per minute exceeded.`, { headers: { 'retry-after': String(retry) } });
      }
      b.tokens -= 1;
    },
  };
}
