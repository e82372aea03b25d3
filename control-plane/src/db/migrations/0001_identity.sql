-- Identities, workspaces, credentials and the instance's own secrets.

CREATE TABLE users (
  id            bigserial PRIMARY KEY,
  email         text NOT NULL,
  password_hash text NOT NULL,
  is_admin      boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE workspaces (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL,
  -- Bumped in the same transaction as any change a sidecar needs (config bundle).
  revision    bigint NOT NULL DEFAULT 1,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE members (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('member', 'developer', 'admin', 'owner')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX members_user_idx ON members (user_id);

CREATE TABLE access_tokens (
  id          bigserial PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        text NOT NULL,
  token_hash  text NOT NULL UNIQUE,
  token_prefix text NOT NULL,
  expires_at  timestamptz,
  revoked_at  timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE relay_keys (
  id             bigserial PRIMARY KEY,
  workspace_id   bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name           text NOT NULL,
  key_hash       text NOT NULL UNIQUE,
  key_prefix     text NOT NULL,
  guardrail_ids  bigint[] NOT NULL DEFAULT '{}',
  quota_limit    bigint,
  quota_used     bigint NOT NULL DEFAULT 0,
  rate_limit_rpm integer,
  models         text[],
  created_by     bigint REFERENCES users(id) ON DELETE SET NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz
);
CREATE INDEX relay_keys_ws_idx ON relay_keys (workspace_id);

CREATE TABLE gateway_keys (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         text NOT NULL,
  key_hash     text NOT NULL UNIQUE,
  key_prefix   text NOT NULL,
  created_by   bigint REFERENCES users(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE INDEX gateway_keys_ws_idx ON gateway_keys (workspace_id);

-- Instance secrets (session-token key, bundle signing key), encrypted with the master key.
CREATE TABLE instance_secrets (
  name        text PRIMARY KEY,
  value_enc   text NOT NULL,
  public_info jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
