-- Registered remote MCP servers (CONTRACT §5). The credential is one
-- master-key envelope of the auth_json object; never stored in clear.
CREATE TABLE mcp_servers (
  id             bigserial PRIMARY KEY,
  workspace_id   bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name           text NOT NULL,
  endpoint       text NOT NULL,
  auth_mode      text NOT NULL CHECK (auth_mode IN ('none', 'bearer', 'oauth', 'basic')),
  auth_enc       text,
  enabled        boolean NOT NULL DEFAULT true,
  status         text NOT NULL DEFAULT 'unknown' CHECK (status IN ('unknown', 'ok', 'degraded', 'down')),
  status_detail  text,
  tools          jsonb NOT NULL DEFAULT '[]',
  -- Tool pinning: "<tool>" -> sha256 of its description and input schema.
  pinned_tools   jsonb,
  latency_ms     integer,
  last_probed_at timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, name)
);
