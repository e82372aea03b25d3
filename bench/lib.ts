// Small helpers shared by the benchmarks.
import { pathToFileURL } from 'node:url';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(samples: number[]): { p50: number; p99: number; mean: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), mean: s.reduce((a, b) => a + b, 0) / s.length, n: s.length };
}

/** True when the module is the script node was started with. */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;
}
