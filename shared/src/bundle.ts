// The signed config bundle (control plane → sidecar). One object per user-
// facing record; the sidecar compiles it and swaps the snapshot atomically.

export const BUNDLE_SCHEMA_VERSION = 1;

/** Header in which a sidecar sends its ephemeral public key (base64url JSON JWK). */
export const SIDECAR_KEY_HEADER = 'x-agentwall-sidecar-key';

export interface BundleRelayKey {
  id: number;
  name: string;
  /** SHA-256 hex of the full key (`sk-svc-…`). */
  key_hash: string;
  key_prefix: string;
  guardrail_ids: number[];
  quota_limit: number | null;
  rate_limit_rpm: number | null;
  models: string[] | null;
}

/** A secret re-encrypted to the sidecar's ephemeral key (JWE ECDH-ES+A256KW), opened only when used. */
export interface SealedSecret {
  sealed: string;
}

export interface ConfigBundle {
  schema: number;
  workspace_id: number;
  revision: number;
  issued_at: string;
  relay_keys: BundleRelayKey[];
  /** Sections filled by later areas (tool servers, policies, guardrails, channels). */
  [section: string]: unknown;
}

/** One enabled tool server as the sidecar sees it (disabled ones are never sent). */
export interface BundleToolServer {
  id: number;
  name: string;
  endpoint: string;
  auth_mode: 'none' | 'bearer' | 'oauth' | 'basic';
  /** JSON of auth_json, sealed to the sidecar; null for auth_mode none. */
  credential: SealedSecret | null;
  /** Changes whenever endpoint or credential change: pooled clients reconnect. */
  version: string;
  /** Accepted definition hashes per tool; null until first probed or pinned. */
  pinned_tools: Record<string, string> | null;
}
