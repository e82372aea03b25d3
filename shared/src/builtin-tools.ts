// Definitions of the bundled in-process server's tools (`builtin.<tool>`),
// shared so the console lists what the sidecar serves.
export interface BuiltinToolDef {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; additionalProperties?: boolean };
}

export const BUILTIN_TOOLS: BuiltinToolDef[] = [
  {
    name: 'time',
    description: 'Current date and time, in UTC or an IANA time zone.',
    inputSchema: { type: 'object', properties: { timezone: { type: 'string', description: 'IANA zone, e.g. Europe/Paris' } }, additionalProperties: false },
  },
  {
    name: 'http_fetch',
    description: 'Fetch a URL over HTTP(S) through the firewall egress rules; returns status, content type and up to 100 KB of text.',
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'http or https URL' },
        method: { type: 'string', enum: ['GET', 'HEAD'] },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
  {
    name: 'uuid',
    description: 'A random UUID v4.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
];
