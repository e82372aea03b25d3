-- Guardrails (CONTRACT §9) and their version history (spec "Guardrail
-- version history"). Delete is soft: deleted_at hides the guardrail from
-- reads and the bundle while its history stays readable and a revert
-- restores it.
CREATE TABLE guardrails (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  enabled      boolean NOT NULL DEFAULT true,
  is_default   boolean NOT NULL DEFAULT false,
  -- The normalised rule list, as validated at save time.
  rules        jsonb NOT NULL DEFAULT '[]',
  -- The newest history version; each change adds one under FOR UPDATE.
  version      integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz
);
CREATE INDEX guardrails_ws_idx ON guardrails (workspace_id);
-- Names are unique among a workspace's live guardrails; a deleted one frees its name.
CREATE UNIQUE INDEX guardrails_live_name_key ON guardrails (workspace_id, name) WHERE deleted_at IS NULL;

-- Append-only: one row per create, update, delete and revert, written in the
-- transaction of the change; the newest 50 per guardrail are kept.
CREATE TABLE guardrail_versions (
  guardrail_id bigint NOT NULL REFERENCES guardrails(id) ON DELETE CASCADE,
  version      integer NOT NULL CHECK (version >= 1),
  operation    text NOT NULL CHECK (operation IN ('create', 'update', 'delete', 'revert')),
  author_id    bigint REFERENCES users(id) ON DELETE SET NULL,
  -- Kept so the trail still names its author after the user is removed.
  author_email text NOT NULL,
  name         text NOT NULL,
  enabled      boolean NOT NULL,
  is_default   boolean NOT NULL,
  rules        jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Backstop against duplicate versions should serialisation ever fail.
  PRIMARY KEY (guardrail_id, version)
);
