// Firewall policy, egress and skill shapes (CONTRACT §6), validated once at
// the edge: the control plane answers 400 with the field named, and the
// sidecar refuses a bundle that does not parse here (it never compiles an
// invalid snapshot into an allow-all).
import { z } from 'zod';
import { RE2JS } from 're2js';
import ipaddr from 'ipaddr.js';

export const SURFACES = ['mcp', 'response', 'inbound', 'egress'] as const;
export const DETECTORS = ['destructive_command', 'ssrf', 'egress', 'skill'] as const;
export const VERDICTS = ['allow', 'audit', 'deny', 'sanitize', 'pending_approval', 'cap_cost'] as const;
export const COST_CAP_SCOPES = ['conversation', 'hour', 'day'] as const;

export type Surface = (typeof SURFACES)[number];
export type DetectorName = (typeof DETECTORS)[number];
export type RuleVerdict = (typeof VERDICTS)[number];
export type CostCapScope = (typeof COST_CAP_SCOPES)[number];

// Tool globs cover "<server>.<tool>" and model function names; host globs
// cover DNS names. Only `*`, `**` and `?` are special. A cap on wildcards
// keeps matching cheap even for hostile policies.
const TOOL_GLOB = /^[A-Za-z0-9_\-.*?/:@]{1,256}$/;
const HOST_GLOB = /^[A-Za-z0-9_\-.*?]{1,253}$/;
const MAX_WILDCARDS = 16;

export function globProblem(glob: string, kind: 'tool' | 'host'): string | undefined {
  if (!(kind === 'tool' ? TOOL_GLOB : HOST_GLOB).test(glob)) {
    return kind === 'tool'
      ? 'glob may only contain letters, digits, _ - . / : @ and the wildcards * ** ?'
      : 'host glob may only contain letters, digits, _ - . and the wildcards * ** ?';
  }
  if (glob.includes('***')) return 'glob has more than two consecutive *';
  if ((glob.match(/[*?]/g) ?? []).length > MAX_WILDCARDS) return `glob has more than ${MAX_WILDCARDS} wildcards`;
  if (kind === 'host' && (glob.startsWith('.') || glob.includes('..'))) return 'host glob has an empty label';
  return undefined;
}

export function regexProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'regex is empty';
  if (pattern.length > 1024) return 'regex is longer than 1024 characters';
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    // RE2 has no look-around or back-references: say so rather than a stack.
    return `regex does not compile under RE2 syntax: ${err instanceof Error ? err.message : String(err)}`;
  }
}

export function cidrProblem(cidr: string): string | undefined {
  try {
    if (cidr.includes('/')) ipaddr.parseCIDR(cidr);
    else ipaddr.parse(cidr);
    return undefined;
  } catch {
    return 'not a CIDR (e.g. 10.0.0.0/8, fd00::/8) or IP address';
  }
}

const ARGS_PATH = /^[^.]{1,128}(\.[^.]{1,128}){0,31}$/;

const toolGlob = z.string().superRefine((g, ctx) => {
  const p = globProblem(g, 'tool');
  if (p) ctx.addIssue({ code: 'custom', message: p });
});
const hostGlob = z.string().superRefine((g, ctx) => {
  const p = globProblem(g, 'host');
  if (p) ctx.addIssue({ code: 'custom', message: p });
});
const re2Pattern = z.string().superRefine((r, ctx) => {
  const p = regexProblem(r);
  if (p) ctx.addIssue({ code: 'custom', message: p });
});
const cidr = z.string().superRefine((c, ctx) => {
  const p = cidrProblem(c);
  if (p) ctx.addIssue({ code: 'custom', message: p });
});

export const ArgsMatcherSchema = z
  .strictObject({
    path: z.string().regex(ARGS_PATH, 'path is a dot path of up to 32 non-empty segments (`*` matches any key)'),
    regex: re2Pattern.optional(),
    contains: z.string().min(1).max(4096).optional(),
    equals: z.union([z.string().max(4096), z.number(), z.boolean(), z.null()]).optional(),
  })
  .superRefine((m, ctx) => {
    const n = ['regex', 'contains', 'equals'].filter((k) => k in m && (m as Record<string, unknown>)[k] !== undefined);
    if (n.length !== 1) ctx.addIssue({ code: 'custom', message: 'exactly one of regex, contains, equals is required' });
  });

export const SanitizeParamsSchema = z.strictObject({ patterns: z.array(re2Pattern).min(1).max(64) });
export const CostCapParamsSchema = z.strictObject({
  max_calls: z.number().int().min(1).max(1_000_000_000),
  per: z.enum(COST_CAP_SCOPES),
});

const ruleShape = {
  name: z.string().max(200).optional(),
  tool: toolGlob,
  detector: z.enum(DETECTORS).optional(),
  args_match: z.array(ArgsMatcherSchema).max(32).optional(),
  verdict: z.enum(VERDICTS),
  params: z.record(z.string(), z.unknown()).optional(),
};

// Params are checked against the verdict so the error names the field
// (`rules[0].params.max_calls`) instead of a generic union failure.
function checkParams(rule: { verdict: RuleVerdict; params?: Record<string, unknown> | undefined }, ctx: z.RefinementCtx): void {
  const schema = rule.verdict === 'sanitize' ? SanitizeParamsSchema : rule.verdict === 'cap_cost' ? CostCapParamsSchema : undefined;
  if (!schema) return;
  if (rule.params === undefined) {
    ctx.addIssue({ code: 'custom', path: ['params'], message: `verdict ${rule.verdict} requires params` });
    return;
  }
  const r = schema.safeParse(rule.params);
  if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: ['params', ...i.path], message: i.message });
}

export const FirewallRuleInputSchema = z.strictObject({ id: z.number().int().positive().optional(), ...ruleShape }).superRefine(checkParams);
// Bundle rows carry server-assigned integer ids and may carry bookkeeping
// columns, which are ignored.
export const FirewallRuleSchema = z.object({ id: z.number().int().positive(), ...ruleShape }).superRefine(checkParams);

const policyShape = {
  name: z.string().min(1).max(200),
  enabled: z.boolean().default(true),
  priority: z.number().int().min(-1_000_000).max(1_000_000).default(100),
  surfaces: z
    .array(z.enum(SURFACES))
    .min(1)
    .refine((s) => new Set(s).size === s.length, 'surfaces must not repeat')
    .default([...SURFACES]),
};
export const FirewallPolicyInputSchema = z.strictObject({ ...policyShape, rules: z.array(FirewallRuleInputSchema).max(500) });
export const FirewallPolicySchema = z.object({ id: z.number().int().positive(), ...policyShape, rules: z.array(FirewallRuleSchema).max(500) });

export const EgressSettingsSchema = z.object({
  mode: z.enum(['allowlist', 'denylist']),
  hosts: z.array(hostGlob).max(1000).default([]),
  cidrs: z.array(cidr).max(1000).default([]),
});

export const SkillSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'skill name is 1-64 letters, digits, _ or -'),
  mode: z.enum(['allow', 'audit', 'block']),
  tools: z.array(toolGlob).min(1).max(500),
});

export const FirewallSnapshotSchema = z.object({
  policies: z.array(FirewallPolicySchema).max(1000),
  egress: EgressSettingsSchema.nullable().optional(),
  skills: z.array(SkillSchema).max(1000).default([]),
});

export type ArgsMatcher = z.infer<typeof ArgsMatcherSchema>;
export type FirewallRuleInput = z.infer<typeof FirewallRuleInputSchema>;
export type FirewallRule = z.infer<typeof FirewallRuleSchema>;
export type FirewallPolicyInput = z.infer<typeof FirewallPolicyInputSchema>;
export type FirewallPolicy = z.infer<typeof FirewallPolicySchema>;
export type EgressSettings = z.infer<typeof EgressSettingsSchema>;
export type Skill = z.infer<typeof SkillSchema>;
export type FirewallSnapshot = z.infer<typeof FirewallSnapshotSchema>;
export type SanitizeParams = z.infer<typeof SanitizeParamsSchema>;
export type CostCapParams = z.infer<typeof CostCapParamsSchema>;

export interface FieldError {
  field: string;
  message: string;
}
export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

// `rules[2].args_match[0].regex`: the form a console user can find.
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(body)';
}

function validate<T>(schema: z.ZodType<T>, input: unknown): Validated<T> {
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  // An unknown key is most often a typo ("detecter"): name the key itself.
  const errors = r.error.issues.flatMap((i): FieldError[] =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({ field: fieldName([...i.path, k]), message: 'unknown field' }))
      : [{ field: fieldName(i.path), message: i.message }],
  );
  return { ok: false, errors };
}

export const validatePolicyInput = (input: unknown): Validated<FirewallPolicyInput> => validate(FirewallPolicyInputSchema, input);
export const validateEgressInput = (input: unknown): Validated<EgressSettings> => validate(EgressSettingsSchema, input);
export const validateSkillInput = (input: unknown): Validated<Skill> => validate(SkillSchema, input);
export const validateSnapshot = (input: unknown): Validated<FirewallSnapshot> => validate(FirewallSnapshotSchema, input);
