-- Firewall policy (CONTRACT §6), approvals and webhooks (§7), audit.

CREATE SEQUENCE firewall_rule_id_seq;

CREATE TABLE firewall_policies (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         text NOT NULL,
  enabled      boolean NOT NULL DEFAULT true,
  priority     integer NOT NULL DEFAULT 100,
  surfaces     text[] NOT NULL,
  rules        jsonb NOT NULL DEFAULT '[]',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX firewall_policies_ws_idx ON firewall_policies (workspace_id, priority, id);

CREATE TABLE firewall_egress (
  workspace_id bigint PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  mode         text NOT NULL CHECK (mode IN ('allowlist', 'denylist')),
  hosts        text[] NOT NULL DEFAULT '{}',
  cidrs        text[] NOT NULL DEFAULT '{}',
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE firewall_skills (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         text NOT NULL,
  mode         text NOT NULL CHECK (mode IN ('allow', 'audit', 'block')),
  tools        text[] NOT NULL DEFAULT '{}',
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, name)
);

CREATE TABLE firewall_changes (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  actor_id     bigint REFERENCES users(id) ON DELETE SET NULL,
  kind         text NOT NULL,      -- policy | egress | skill
  action       text NOT NULL,      -- create | update | delete
  target       text NOT NULL,
  before       jsonb,
  after        jsonb,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX firewall_changes_ws_idx ON firewall_changes (workspace_id, id DESC);

CREATE TABLE approval_settings (
  workspace_id       bigint PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  webhook_url        text,
  webhook_secret_enc text,
  hold_ttl_seconds   integer NOT NULL DEFAULT 900 CHECK (hold_ttl_seconds BETWEEN 60 AND 86400),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE approvals (
  id                text PRIMARY KEY,
  workspace_id      bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  surface           text NOT NULL,
  tool_name         text NOT NULL,
  -- SHA-256 of the canonical JSON arguments (mcp and egress surfaces); never the arguments.
  args_hash         text,
  request_id        text,
  conversation_id   text,
  policy_id         bigint,
  rule_id           bigint,
  relay_key_id      bigint,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  resolved_at       timestamptz,
  resolved_by       text CHECK (resolved_by IN ('console', 'callback', 'expiry')),
  resolver_id       bigint REFERENCES users(id) ON DELETE SET NULL,
  reason            text,
  token_hash        text UNIQUE,
  token_enc         text,
  token_consumed_at timestamptz
);
CREATE INDEX approvals_ws_idx ON approvals (workspace_id, created_at DESC);
CREATE INDEX approvals_pending_idx ON approvals (expires_at) WHERE status = 'pending';

CREATE TABLE webhook_deliveries (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  approval_id  text,
  event        text NOT NULL,
  url          text NOT NULL,
  attempt      integer NOT NULL,
  status_code  integer,
  error        text,
  duration_ms  integer NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_ws_idx ON webhook_deliveries (workspace_id, id DESC);

CREATE TABLE audit_events (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  -- Idempotency key from the producer: a re-shipped spool batch inserts nothing twice.
  event_id     text NOT NULL,
  kind         text NOT NULL,
  source       text NOT NULL,
  occurred_at  timestamptz NOT NULL,
  data         jsonb NOT NULL,
  UNIQUE (workspace_id, event_id)
);
CREATE INDEX audit_events_ws_idx ON audit_events (workspace_id, occurred_at DESC);
