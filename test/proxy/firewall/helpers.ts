// Snapshots shared by the firewall tests.
import type { CorpusCase } from './corpus/ssrf-attacks.js';

// The default policy every new workspace gets (CONTRACT §6).
export const DEFAULT_SNAPSHOT = {
  policies: [
    {
      id: 1,
      name: 'default',
      enabled: true,
      priority: 100,
      surfaces: ['mcp', 'response', 'inbound', 'egress'],
      rules: [
        { id: 1, tool: '**', detector: 'destructive_command', verdict: 'deny' },
        { id: 2, tool: '**', detector: 'ssrf', verdict: 'deny' },
      ],
    },
  ],
  egress: null,
  skills: [],
};

export interface CorpusScore {
  total: number;
  hits: number;
  misses: string[];
}

export function score(cases: readonly CorpusCase[], fires: (c: CorpusCase) => boolean): CorpusScore {
  const misses = cases.filter((c) => !fires(c)).map((c) => c.name);
  return { total: cases.length, hits: cases.length - misses.length, misses };
}

export const pct = (n: number, d: number): string => `${((100 * n) / d).toFixed(1)}%`;
