// One validated rule compiled for the hot path: its tool glob, its
// `args_match` matchers (RE2 regexes, compiled once), and the sanitizer or
// cost cap its verdict needs.
import { RE2JS } from 're2js';
import type { ArgsMatcher, CostCapParams, DetectorName, FirewallRule, RuleVerdict } from '@agentwall/shared/schemas/firewall';
import { CostCapParamsSchema, SanitizeParamsSchema } from '@agentwall/shared/schemas/firewall';
import { someAtPath } from './args.js';
import { compileGlob, type GlobMatcher } from './glob.js';
import { compileSanitizer, type Sanitizer } from './sanitize.js';

export interface CompiledRule {
  policyId: number;
  ruleId: number;
  /** The rule's name, else its id: for factors. */
  label: string;
  tool: GlobMatcher;
  detector: DetectorName | undefined;
  matchers: Array<{ segments: string[]; test: (v: unknown) => boolean }>;
  verdict: RuleVerdict;
  params: Record<string, unknown> | undefined;
  sanitizer: Sanitizer | undefined;
  costCap: CostCapParams | undefined;
}

// Characters that are themselves in a pattern: printable ASCII other than
// the RE2 metacharacters.
const LITERAL = /^[A-Za-z0-9 _\-/:=,;'"@#%&~<>!`]$/;

/**
 * A prefix every match must start with, proven from the pattern's text:
 * "^" then plain literal characters (case-sensitive: the pattern sets no
 * flags), in a pattern without "|" anywhere (an alternative could drop the
 * anchor). A literal followed by ?, * or { may be absent, so it is left out.
 * re2js is slow even to reject; startsWith() rules most values out first.
 */
export function anchoredPrefix(pattern: string): string | undefined {
  if (!pattern.startsWith('^') || pattern.includes('|')) return undefined;
  let i = 1;
  while (i < pattern.length && LITERAL.test(pattern[i] as string)) i++;
  let end = i;
  const next = pattern[i];
  if (next === '?' || next === '*' || next === '{') end--;
  return end > 1 ? pattern.slice(1, end) : undefined;
}

// Matchers look at scalar values only: an object at the path never matches,
// so an allow rule cannot be widened by nesting.
function compileMatcher(m: ArgsMatcher): CompiledRule['matchers'][number] {
  const segments = m.path.split('.');
  const scalar = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
  if (m.regex !== undefined) {
    const re = RE2JS.compile(m.regex);
    const prefix = anchoredPrefix(m.regex);
    if (prefix) return { segments, test: (v) => { const s = scalar(v); return s !== undefined && s.startsWith(prefix) && re.test(s); } };
    return { segments, test: (v) => { const s = scalar(v); return s !== undefined && re.test(s); } };
  }
  if (m.contains !== undefined) {
    const needle = m.contains;
    return { segments, test: (v) => { const s = scalar(v); return s !== undefined && s.includes(needle); } };
  }
  const want = m.equals;
  return { segments, test: (v) => v === want };
}

export function compileRule(policyId: number, r: FirewallRule): CompiledRule {
  return {
    policyId,
    ruleId: r.id,
    label: r.name ?? String(r.id),
    tool: compileGlob(r.tool),
    detector: r.detector,
    matchers: (r.args_match ?? []).map(compileMatcher),
    verdict: r.verdict,
    params: r.params,
    sanitizer: r.verdict === 'sanitize' ? compileSanitizer(SanitizeParamsSchema.parse(r.params).patterns) : undefined,
    costCap: r.verdict === 'cap_cost' ? CostCapParamsSchema.parse(r.params) : undefined,
  };
}

/** Every matcher must hold for some value at its path. */
export function matchArgs(rule: CompiledRule, root: unknown): boolean {
  for (const m of rule.matchers) {
    if (!someAtPath(root, m.segments, m.test)) return false;
  }
  return true;
}
