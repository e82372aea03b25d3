// Process settings, declared once with their defaults and validated once at
// start; an error names the variable, never its value.
import path from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

const Env = z.object({
  AGENTWALL_HOST: z.string().min(1).default('127.0.0.1'),
  AGENTWALL_SIDECAR_PORT: port.default(8787),
  AGENTWALL_CP_PORT: port.default(8790),
  AGENTWALL_EGRESS_PORT: port.default(8789),
  AGENTWALL_DATA_DIR: z.string().min(1).default('./.agentwall'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  AGENTWALL_ADMIN_EMAIL: z.email().default('admin@localhost'),
  AGENTWALL_ADMIN_PASSWORD: z.string().min(8).optional(),
  AGENTWALL_CONTROL_PLANE_URL: z.url().optional(),
  AGENTWALL_GATEWAY_KEY: z.string().startsWith('gk-svc-').optional(),
  /** PEM file of extra CAs trusted for approval webhooks (a private CA in front of the receiver). */
  AGENTWALL_WEBHOOK_CA_FILE: z.string().min(1).optional(),
  AGENTWALL_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Seconds a sidecar asks the control plane to hold a bundle long-poll (1–60). */
  AGENTWALL_BUNDLE_WAIT_S: z.coerce.number().int().min(1).max(60).default(30),
  /** Milliseconds the MCP gateway waits for an upstream tool call before answering a tool error. */
  AGENTWALL_MCP_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});

export type Settings = z.output<typeof Env> & { dataDir: string };

export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const picked: Record<string, string> = {};
  for (const k of Object.keys(Env.shape)) {
    const v = env[k];
    if (v !== undefined && v !== '') picked[k] = v;
  }
  const r = Env.safeParse(picked);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`invalid setting ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`);
  }
  return Object.freeze({ ...r.data, dataDir: path.resolve(r.data.AGENTWALL_DATA_DIR) });
}
