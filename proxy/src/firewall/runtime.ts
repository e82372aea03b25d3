// Ties the pure verdict engine to the sidecar: compiles each bundle's
// firewall section once, judges calls on every surface, records every
// non-allow verdict in the audit spool (never the arguments), and turns a
// pending_approval verdict into a hold at the control plane, or lets one
// retry through when it carries a valid single-use approval token.
import { canonicalHash } from '@agentwall/shared/canonical-json';
import type { Logger } from 'pino';
import { compileFirewall, createFirewallState, evaluateCall, type CompiledFirewall, type Verdict } from './engine.js';
import type { Snapshot } from '../sync/snapshot.js';
import type { Spool } from '../spool/spool.js';
import type { ControlPlaneClient } from '../control-plane-client.js';
import type { CompiledEgress } from './detectors/egress.js';

export type Surface = 'mcp' | 'response' | 'inbound' | 'egress';

export interface JudgedCall {
  surface: Surface;
  tool_name: string;
  arguments: unknown;
  conversation_id?: string | undefined;
  request_id?: string | undefined;
  relay_key_id?: number | undefined;
  approval_token?: string | undefined;
}

export type Outcome =
  | { action: 'allow'; verdict: Verdict; arguments?: unknown }
  | { action: 'deny'; verdict: Verdict; message: string }
  | { action: 'pending'; verdict: Verdict; message: string; approval: { approval_id: string; expires_at: string; poll_url: string } };

export interface FirewallRuntime {
  judge(call: JudgedCall): Promise<Outcome>;
  /** The egress lists in force (for connect-time address checks). */
  egress(): CompiledEgress | undefined;
  onSnapshot(s: Snapshot): void;
}

/** Arguments are bound to an approval on the surfaces where the call is replayed as-is. */
export function argsHashFor(surface: Surface, args: unknown): string | null {
  return surface === 'mcp' || surface === 'egress' ? canonicalHash(args ?? {}) : null;
}

export function denyMessage(v: Verdict): string {
  const why = v.factors.length > 0 ? `: ${v.factors.slice(0, 3).join('; ')}` : '';
  return `firewall deny: ${v.reason_code ?? 'rule_match'} on ${v.tool_name}${why}`.slice(0, 500);
}

export function createFirewallRuntime(opts: { log: Logger; spool: Spool; cp: ControlPlaneClient; initial?: Snapshot }): FirewallRuntime {
  // Fail closed until a bundle arrives: an empty snapshot is invalid and compiles into deny-all.
  let compiled: CompiledFirewall = compileFirewall(undefined);
  const state = createFirewallState();

  function record(call: JudgedCall, v: Verdict, extra: Record<string, unknown> = {}): void {
    try {
      opts.spool.record('firewall.verdict', {
        surface: call.surface,
        tool_name: call.tool_name,
        verdict: v.verdict,
        reason_code: v.reason_code ?? null,
        risk_score: v.risk_score,
        factors: v.factors,
        policy_id: v.policy_id ?? null,
        rule_id: v.rule_id ?? null,
        conversation_id: call.conversation_id ?? null,
        request_id: call.request_id ?? null,
        relay_key_id: call.relay_key_id ?? null,
        ...extra,
      });
    } catch (err) {
      opts.log.error({ reason: (err as Error).message }, 'audit spool write failed');
    }
  }

  const runtime: FirewallRuntime = {
    egress: () => compiled.egress,
    onSnapshot(s) {
      compiled = compileFirewall(s.bundle['firewall']);
      if (!compiled.ok) opts.log.error({ errors: compiled.errors.slice(0, 5) }, 'firewall section invalid; denying every call until a valid bundle arrives');
    },
    async judge(call) {
      const v = evaluateCall(compiled, { surface: call.surface, tool_name: call.tool_name, arguments: call.arguments, ...(call.conversation_id ? { conversation_id: call.conversation_id } : {}) }, state);
      switch (v.verdict) {
        case 'allow':
          return { action: 'allow', verdict: v };
        case 'audit':
          record(call, v);
          return { action: 'allow', verdict: v };
        case 'sanitize':
          record(call, v);
          return { action: 'allow', verdict: v, arguments: v.sanitized_arguments };
        case 'deny':
          record(call, v);
          return { action: 'deny', verdict: v, message: denyMessage(v) };
        case 'pending_approval': {
          const argsHash = argsHashFor(call.surface, call.arguments);
          if (call.approval_token) {
            const ok = await opts.cp.consume(call.approval_token, call.tool_name, argsHash).catch(() => false);
            if (ok) {
              record(call, { ...v, verdict: 'allow' }, { approval_token_used: true });
              return { action: 'allow', verdict: v };
            }
          }
          let hold;
          try {
            hold = await opts.cp.createHold({
              surface: call.surface, tool_name: call.tool_name, args_hash: argsHash, request_id: call.request_id ?? null, conversation_id: call.conversation_id ?? null,
              policy_id: v.policy_id ?? null, rule_id: v.rule_id ?? null, relay_key_id: call.relay_key_id ?? null,
            });
          } catch (err) {
            // No hold can be placed: the call stays blocked (fail closed).
            opts.log.warn({ reason: (err as Error).message }, 'approval hold could not be created');
            const denied = { ...v, verdict: 'deny' as const, factors: [...v.factors, 'approval_service_unreachable'] };
            record(call, denied);
            return { action: 'deny', verdict: denied, message: `firewall deny: approval required for ${call.tool_name} but the approval service is unreachable` };
          }
          record(call, v, { approval_id: hold.id });
          const approval = { approval_id: hold.id, expires_at: hold.expires_at, poll_url: `/api/v1/firewall/approvals/${hold.id}` };
          return { action: 'pending', verdict: v, approval, message: `firewall approval pending: ${hold.id} holds ${call.tool_name}; poll ${approval.poll_url}, then re-send once with X-Service-Firewall-Approval` };
        }
      }
    },
  };
  if (opts.initial) runtime.onSnapshot(opts.initial);
  return runtime;
}
