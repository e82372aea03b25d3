// The firewall verdict engine (CONTRACT §6): compile a snapshot once, then
// judge each tool call with pure functions. Enabled policies that cover the
// call's surface, by ascending priority; their rules in order; the first
// matching rule's verdict stands. With no match, skills and (on the egress
// surface) the egress settings still apply, else the call is allowed with
// the risk of any detector that fired, for the audit log.
//
// Fail closed: an invalid snapshot compiles into a deny-all, and arguments
// that cannot be walked, a call of the wrong shape, or an exception inside a
// detector deny the call with an `evaluation_error` factor.
//
// Egress surface: `tool_name` is the destination host (the CONNECT host or
// the Host of a plain HTTP request) and `arguments` is `{host, port?, url?,
// method?}`; host globs in rules then match the destination.
import { validateSnapshot, type DetectorName, type FieldError, type Surface } from '@agentwall/shared/schemas/firewall';
import { DEFAULT_WALK_LIMITS, walkArguments, type WalkLimits, type WalkResult } from './args.js';
import { createCostCapStore, type CostCapOptions, type CostCapStore } from './cost-cap.js';
import { detectDestructive } from './detectors/destructive-command.js';
import { compileEgress, detectEgress, type CompiledEgress } from './detectors/egress.js';
import { compileSkills, detectSkill, type CompiledSkill, type SkillResult } from './detectors/skill.js';
import { detectSsrf, type DetectorResult } from './detectors/ssrf.js';
import { compileRule, matchArgs, type CompiledRule } from './rules.js';

export type VerdictName = 'allow' | 'audit' | 'deny' | 'sanitize' | 'pending_approval';
export type ReasonCode = 'destructive_command' | 'ssrf' | 'egress_denied' | 'skill_blocked' | 'rule_match' | 'cost_cap_exceeded' | 'sanitize_escalated';

export interface Verdict {
  verdict: VerdictName;
  reason_code?: ReasonCode;
  /** 0–1: the highest risk of the detectors that fired, or the verdict's baseline. */
  risk_score: number;
  factors: string[];
  policy_id?: number;
  rule_id?: number;
  tool_name: string;
  /** Verdict `sanitize` only: the arguments with every match redacted. */
  sanitized_arguments?: unknown;
  params?: Record<string, unknown>;
}

export interface FirewallCall {
  surface: Surface;
  tool_name: string;
  arguments: unknown;
  conversation_id?: string;
  /** Milliseconds since the epoch; defaults to Date.now() (cost-cap windows). */
  now?: number;
}

export interface FirewallState {
  costCaps: CostCapStore;
}

export interface CompiledFirewall {
  readonly ok: boolean;
  readonly errors: readonly FieldError[];
  readonly rules: Readonly<Record<Surface, readonly CompiledRule[]>>;
  readonly egress: CompiledEgress | undefined;
  readonly skills: readonly CompiledSkill[];
  readonly limits: WalkLimits;
}

const REASON_OF: Record<DetectorName, ReasonCode> = {
  destructive_command: 'destructive_command',
  ssrf: 'ssrf',
  egress: 'egress_denied',
  skill: 'skill_blocked',
};
// Risk of a verdict reached without a detector: how much a reviewer should care.
const BASELINE: Record<VerdictName, number> = { allow: 0, audit: 0.1, sanitize: 0.3, pending_approval: 0.5, deny: 0.5 };
const SURFACE_SET = new Set<string>(['mcp', 'response', 'inbound', 'egress']);
const MAX_TOOL_NAME = 512;

export function createFirewallState(options?: CostCapOptions): FirewallState {
  return { costCaps: createCostCapStore(options) };
}

const emptyRules = (): Record<Surface, CompiledRule[]> => ({ mcp: [], response: [], inbound: [], egress: [] });

function denyAll(errors: FieldError[]): CompiledFirewall {
  return { ok: false, errors, rules: emptyRules(), egress: undefined, skills: [], limits: DEFAULT_WALK_LIMITS };
}

export function compileFirewall(snapshot: unknown, options: { limits?: Partial<WalkLimits> } = {}): CompiledFirewall {
  try {
    const v = validateSnapshot(snapshot);
    if (!v.ok) return denyAll(v.errors);
    const rules = emptyRules();
    const policies = v.value.policies.filter((p) => p.enabled).sort((a, b) => a.priority - b.priority || a.id - b.id);
    for (const p of policies) {
      const compiled = p.rules.map((r) => compileRule(p.id, r));
      for (const s of p.surfaces) rules[s].push(...compiled);
    }
    return {
      ok: true,
      errors: [],
      rules,
      egress: v.value.egress ? compileEgress(v.value.egress) : undefined,
      skills: compileSkills(v.value.skills),
      limits: { ...DEFAULT_WALK_LIMITS, ...options.limits },
    };
  } catch (err) {
    return denyAll([{ field: '(snapshot)', message: err instanceof Error ? err.message : String(err) }]);
  }
}

// Per-call memo: each detector runs at most once per call. Plain fields
// rather than a Map: this runs on every call.
class CallContext {
  private destructive: DetectorResult | undefined;
  private ssrf: DetectorResult | undefined;
  private skill: SkillResult | undefined;
  private egress: DetectorResult | undefined;
  constructor(
    readonly fw: CompiledFirewall,
    readonly call: FirewallCall,
    readonly tool: string,
    readonly walk: Extract<WalkResult, { ok: true }>,
  ) {}

  detect(name: DetectorName): DetectorResult {
    const s = this.walk.strings;
    switch (name) {
      case 'destructive_command':
        return (this.destructive ??= detectDestructive(s));
      case 'ssrf':
        return (this.ssrf ??= detectSsrf(s));
      case 'skill':
        return (this.skill ??= detectSkill(this.fw.skills, this.tool));
      default:
        return (this.egress ??= this.fw.egress ? detectEgress(this.fw.egress, s, this.call.surface === 'egress' ? this.call.tool_name : undefined) : { fired: false, risk: 0, factors: [] });
    }
  }

  maxRisk(): number {
    let m = 0;
    for (const r of [this.destructive, this.ssrf, this.skill, this.egress]) if (r?.fired && r.risk > m) m = r.risk;
    return m;
  }
}

class DetectorFailure extends Error {
  constructor(readonly detector: DetectorName, cause: unknown) {
    super(`detector ${detector} failed`, { cause });
  }
}

function runDetector(ctx: CallContext, name: DetectorName): DetectorResult {
  try {
    return ctx.detect(name);
  } catch (err) {
    throw new DetectorFailure(name, err);
  }
}

function failClosed(call: FirewallCall, factor: string, rule?: CompiledRule, reason?: ReasonCode): Verdict {
  const v: Verdict = { verdict: 'deny', reason_code: reason ?? (rule?.detector ? REASON_OF[rule.detector] : 'rule_match'), risk_score: 1, factors: [factor], tool_name: typeof call?.tool_name === 'string' ? call.tool_name : '' };
  if (rule) {
    v.policy_id = rule.policyId;
    v.rule_id = rule.ruleId;
  }
  return v;
}

export function evaluateCall(fw: CompiledFirewall, call: FirewallCall, state?: FirewallState): Verdict {
  if (!fw.ok) return failClosed(call, 'evaluation_error:invalid_snapshot');
  if (!call || typeof call.tool_name !== 'string' || call.tool_name.length > MAX_TOOL_NAME || !SURFACE_SET.has(call.surface)) {
    return failClosed(call, 'evaluation_error:malformed_call');
  }
  const tool = call.tool_name.toLowerCase();
  const rules = fw.rules[call.surface];
  let current: CompiledRule | undefined;
  try {
    const walk = walkArguments(call.arguments, fw.limits);
    if (!walk.ok) return failClosed(call, `evaluation_error:${walk.error}`, rules.find((r) => r.tool(tool)));
    const ctx = new CallContext(fw, call, tool, walk);
    for (const rule of rules) {
      current = rule;
      if (!rule.tool(tool) || !matchArgs(rule, walk.root)) continue;
      if (!rule.detector) return ruleVerdict(ctx, rule, 'rule_match', [`rule_match:${rule.label}`], state);
      const d = runDetector(ctx, rule.detector);
      if (d.fired) return ruleVerdict(ctx, rule, REASON_OF[rule.detector], d.factors, state);
      if (rule.detector === 'skill' && (d as SkillResult).audit.length > 0) {
        return withIds({ verdict: 'audit', reason_code: 'rule_match', risk_score: BASELINE.audit, factors: (d as SkillResult).audit.map((n) => `skill_audit:${n}`), tool_name: call.tool_name }, rule);
      }
    }
    current = undefined;
    return noMatch(ctx);
  } catch (err) {
    if (err instanceof DetectorFailure) return failClosed(call, `evaluation_error:${err.detector}`, current, REASON_OF[err.detector]);
    return failClosed(call, 'evaluation_error:internal', current);
  }
}

function withIds(v: Verdict, rule: CompiledRule): Verdict {
  v.policy_id = rule.policyId;
  v.rule_id = rule.ruleId;
  if (rule.params) v.params = rule.params;
  return v;
}

function ruleVerdict(ctx: CallContext, rule: CompiledRule, reason: ReasonCode, factors: string[], state?: FirewallState): Verdict {
  const { call } = ctx;
  const risk = (verdict: VerdictName): number => Math.max(ctx.maxRisk(), rule.detector ? 0 : BASELINE[verdict]);
  const v = (verdict: VerdictName, reason_code: ReasonCode, f: string[]): Verdict =>
    withIds({ verdict, reason_code, risk_score: risk(verdict), factors: f, tool_name: call.tool_name }, rule);
  switch (rule.verdict) {
    case 'sanitize': {
      const { value, changed } = (rule.sanitizer as NonNullable<CompiledRule['sanitizer']>).redact(ctx.walk.root);
      if (changed === 0) return v('allow', reason, [...factors, 'sanitize_no_match']);
      if (call.surface === 'inbound') return v('deny', 'sanitize_escalated', [...factors, `redacted_strings:${changed}`]);
      const out = v('sanitize', reason, [...factors, `redacted_strings:${changed}`]);
      out.sanitized_arguments = typeof call.arguments === 'string' ? JSON.stringify(value) : value;
      return out;
    }
    case 'cap_cost': {
      const cap = rule.costCap as NonNullable<CompiledRule['costCap']>;
      // Without a counter store the cap cannot be enforced: refuse.
      if (!state) return v('deny', 'cost_cap_exceeded', [...factors, 'evaluation_error:no_cost_cap_state']);
      const t = state.costCaps.take({ policy_id: rule.policyId, rule_id: rule.ruleId, per: cap.per, conversation_id: call.conversation_id }, cap.max_calls, call.now ?? Date.now());
      const f = [...factors, `cost_cap:${t.count}/${cap.max_calls}:${t.scope}`];
      return t.allowed ? v('allow', reason, f) : v('deny', 'cost_cap_exceeded', f);
    }
    default:
      return v(rule.verdict, reason, factors);
  }
}

function noMatch(ctx: CallContext): Verdict {
  const { call, fw } = ctx;
  const tool_name = call.tool_name;
  if (fw.skills.length > 0) {
    const s = runDetector(ctx, 'skill') as SkillResult;
    if (s.fired) return { tool_name, verdict: 'deny', reason_code: 'skill_blocked', risk_score: Math.max(s.risk, ctx.maxRisk()), factors: s.factors };
    if (s.audit.length > 0) return { tool_name, verdict: 'audit', reason_code: 'rule_match', risk_score: Math.max(BASELINE.audit, ctx.maxRisk()), factors: s.audit.map((n) => `skill_audit:${n}`) };
  }
  if (call.surface === 'egress' && fw.egress) {
    const e = runDetector(ctx, 'egress');
    if (e.fired) return { tool_name, verdict: 'deny', reason_code: 'egress_denied', risk_score: Math.max(e.risk, ctx.maxRisk()), factors: e.factors };
  }
  // Audit-only information: what the detectors would have said.
  const destructive = runDetector(ctx, 'destructive_command');
  const ssrf = runDetector(ctx, 'ssrf');
  const factors = destructive.fired ? (ssrf.fired ? [...destructive.factors, ...ssrf.factors] : destructive.factors.slice()) : ssrf.fired ? ssrf.factors.slice() : [];
  return { tool_name, verdict: 'allow', risk_score: ctx.maxRisk(), factors };
}
