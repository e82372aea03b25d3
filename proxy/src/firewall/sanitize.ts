// Verdict `sanitize`: every match of the rule's patterns inside string
// values becomes "[REDACTED]", at any depth. Keys are kept (the tool's
// schema depends on them). Patterns are RE2 (re2js), so a hostile pattern
// or argument cannot make redaction super-linear.
import { RE2JS } from 're2js';

export const REDACTED = '[REDACTED]';

export interface Sanitizer {
  /** A redacted deep copy and how many strings changed. */
  redact(root: unknown): { value: unknown; changed: number };
}

export function compileSanitizer(patterns: readonly string[]): Sanitizer {
  const res = patterns.map((p) => RE2JS.compile(p));
  const redactString = (s: string): string => {
    let out = s;
    for (const re of res) {
      // test() runs on the DFA fast path; only real hits pay for a matcher.
      if (re.test(out)) out = re.matcher(out).replaceAll(REDACTED);
    }
    return out;
  };
  return {
    redact(root) {
      let changed = 0;
      // The argument walker has already refused cycles and excess depth.
      const copy = (v: unknown): unknown => {
        if (typeof v === 'string') {
          const r = redactString(v);
          if (r !== v) changed++;
          return r;
        }
        if (Array.isArray(v)) return v.map(copy);
        if (v !== null && typeof v === 'object') {
          const out: Record<string, unknown> = {};
          for (const [k, x] of Object.entries(v)) out[k] = copy(x);
          return out;
        }
        return v;
      };
      const value = copy(root);
      return { value, changed };
    },
  };
}
