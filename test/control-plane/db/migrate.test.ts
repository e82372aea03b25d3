// Migrations apply once under an advisory lock, however many control planes start together.
import t from 'tap';
import { createPool } from '@agentwall/control-plane/db/pool';
import { migrate } from '@agentwall/control-plane/db/migrate';
import { eachDatabase, freshDatabase } from '../../helpers/db.js';

t.test('migrations', async (t) => {
  await eachDatabase(t, async (t, server) => {
    await t.test('five concurrent starts apply every migration exactly once', async (t) => {
      const url = await freshDatabase(t, server);
      const pools = Array.from({ length: 5 }, () => createPool(url));
      t.teardown(() => Promise.all(pools.map((p) => p.end())));
      const results = await Promise.all(pools.map((p) => migrate(p)));
      const applied = results.flat();
      const names = (await pools[0]!.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name);
      t.ok(names.length > 0);
      t.same([...applied].sort(), names, 'each file applied by exactly one starter');
      t.same(await migrate(pools[0]!), [], 'a restart applies nothing');
    });

    await t.test('NOTIFY reaches a listener on another pooled connection', async (t) => {
      const url = await freshDatabase(t, server);
      const pool = createPool(url);
      t.teardown(() => pool.end());
      const listener = await pool.connect();
      t.teardown(() => listener.release());
      await listener.query('LISTEN agentwall_test');
      const got = new Promise<string | undefined>((resolve) => listener.once('notification', (m) => resolve(m.payload)));
      await pool.query(`SELECT pg_notify('agentwall_test', 'hello')`);
      t.equal(await got, 'hello');
    });
  });
});
