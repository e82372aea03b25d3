import t from 'tap';
import { createCostCapStore, scopeOf } from '../../../proxy/src/firewall/cost-cap.js';

const HOUR = 3_600_000;
const key = (per: 'conversation' | 'hour' | 'day', conversation_id?: string) => ({ policy_id: 1, rule_id: 2, per, conversation_id });

t.test('hour windows are UTC hours and reset at the boundary', async (t) => {
  const s = createCostCapStore();
  const t0 = Date.UTC(2025, 0, 1, 10, 59, 0);
  t.ok(s.take(key('hour'), 1, t0).allowed);
  t.notOk(s.take(key('hour'), 1, t0 + 30_000).allowed, 'same hour');
  t.ok(s.take(key('hour'), 1, Date.UTC(2025, 0, 1, 11, 0, 0)).allowed, 'next hour');
});

t.test('day windows are UTC days', async (t) => {
  t.equal(scopeOf(key('day'), Date.UTC(2025, 0, 2, 23, 59)).scope, scopeOf(key('day'), Date.UTC(2025, 0, 2, 0, 0)).scope);
  t.not(scopeOf(key('day'), Date.UTC(2025, 0, 3, 0, 0)).scope, scopeOf(key('day'), Date.UTC(2025, 0, 2, 23, 59)).scope);
});

t.test('calls without a conversation id share one bucket', async (t) => {
  const s = createCostCapStore();
  t.ok(s.take(key('conversation'), 2, 0).allowed);
  t.ok(s.take(key('conversation', ''), 2, 0).allowed);
  t.notOk(s.take(key('conversation'), 2, 0).allowed);
  t.ok(s.take(key('conversation', 'no-conversation'), 2, 0).allowed, 'a real id never collides with the shared bucket');
});

t.test('denied calls are not counted', async (t) => {
  const s = createCostCapStore();
  s.take(key('hour'), 1, 0);
  t.match(s.take(key('hour'), 1, 0), { allowed: false, count: 1 });
});

t.test('memory is bounded: expired windows go first, then least recently used', async (t) => {
  const s = createCostCapStore({ maxEntries: 100 });
  for (let i = 0; i < 100; i++) s.take(key('hour'), 5, i * HOUR);
  t.ok(s.size <= 100);
  for (let i = 0; i < 1000; i++) s.take(key('conversation', `c${i}`), 5, 0);
  t.ok(s.size <= 100, `size ${s.size}`);
});

t.test('idle conversation counters expire', async (t) => {
  const s = createCostCapStore({ conversationTtlMs: 1000 });
  s.take(key('conversation', 'c'), 1, 0);
  t.notOk(s.take(key('conversation', 'c'), 1, 500).allowed);
  t.ok(s.take(key('conversation', 'c'), 1, 5000).allowed);
});
