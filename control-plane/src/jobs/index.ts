// Scheduled jobs (node-cron, six-field expressions). Each job is a plain
// async function under an advisory lock, so one replica runs it at a time.
import cron from 'node-cron';
import type { Deps } from '../deps.js';
import { expireApprovals } from './expire-approvals.js';

const JOBS: Array<{ name: string; schedule: string; run: (deps: Deps) => Promise<unknown> }> = [
  { name: 'expire-approvals', schedule: '*/5 * * * * *', run: expireApprovals },
];

export function startJobs(deps: Deps): { stop(): Promise<void> } {
  const tasks = JOBS.map((job) =>
    cron.schedule(job.schedule, async () => {
      try {
        await job.run(deps);
      } catch (err) {
        deps.log.warn({ job: job.name, reason: (err as Error).message }, 'scheduled job failed');
      }
    }, { name: job.name, noOverlap: true }),
  );
  return {
    async stop() {
      await Promise.all(tasks.map((t) => t.destroy()));
    },
  };
}
