// Every column that holds a master-key envelope, so rotation re-encrypts all
// of them. A new encrypted column is one line here.
export interface SecretColumn {
  table: string;
  id: string;
  column: string;
}

export const SECRET_COLUMNS: SecretColumn[] = [
  { table: 'instance_secrets', id: 'name', column: 'value_enc' },
  { table: 'mcp_servers', id: 'id', column: 'auth_enc' },
  { table: 'approval_settings', id: 'workspace_id', column: 'webhook_secret_enc' },
  { table: 'approvals', id: 'id', column: 'token_enc' },
];
