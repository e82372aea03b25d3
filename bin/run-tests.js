#!/usr/bin/env node
// `npm test`: one embedded PostgreSQL server for the whole run (each test
// file makes its own database on it), then tap, then a closing line
// `N passed, N failed`. tap's exit code is kept.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { register } from 'tsx/esm/api';

register();
const { startEmbeddedPostgres } = await import('../control-plane/src/db/embedded.ts');

const dir = await mkdtemp(path.join(tmpdir(), 'agentwall-test-pg-'));
const db = await startEmbeddedPostgres(dir, { database: 'postgres' });
if (!process.env.TEST_DATABASE_URL) {
  process.stdout.write('# notice: TEST_DATABASE_URL unset: database suites run on the embedded server only\n');
}

const child = spawn(process.execPath, [path.resolve('node_modules/tap/dist/esm/run.mjs'), ...process.argv.slice(2)], {
  env: { ...process.env, AGENTWALL_TEST_EMBEDDED_URL: db.url },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString('utf8')).slice(-4096);
});
const code = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
await db.stop();
await rm(dir, { recursive: true, force: true });

const summary = [...tail.matchAll(/^# \{ (.*) \}$/gm)].pop()?.[1] ?? '';
const count = (name) => Number(new RegExp(`(?:^|, )${name}: (\\d+)`).exec(summary)?.[1] ?? 0);
const failed = count('fail') + (code !== 0 && count('fail') === 0 ? 1 : 0);
process.stdout.write(`\n${count('pass')} passed, ${failed} failed${count('skip') ? `, ${count('skip')} skipped` : ''}\n`);
process.exit(code);
