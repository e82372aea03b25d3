// The sidecar's own routes; /api/* is the control plane's document.
export const SIDECAR_OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'agentwall sidecar', version: '0.1.0' },
  components: { securitySchemes: { relay: { type: 'http', scheme: 'bearer', description: 'Relay key (sk-svc-…); also x-api-key, x-goog-api-key or ?key=' } } },
  paths: {
    '/healthz': { get: { summary: 'Liveness', responses: { 200: { description: 'alive' } } } },
    '/readyz': { get: { summary: 'Ready once a verified config bundle is loaded', responses: { 200: { description: 'ready' }, 503: { description: 'no bundle yet' } } } },
    '/metrics': { get: { summary: 'Prometheus metrics', responses: { 200: { description: 'text exposition' } } } },
    '/v1/models': { get: { summary: 'Models available to this relay key', security: [{ relay: [] }], responses: { 200: { description: '{object:"list", data:[Model]}' } } } },
    '/mcp': {
      post: { summary: 'Aggregated MCP server (Streamable HTTP): every enabled tool server as <server>.<tool> plus builtin.*; relay key as bearer token; sessions by Mcp-Session-Id', security: [{ relay: [] }], responses: { 200: { description: 'JSON-RPC response' }, 202: { description: 'notification accepted' }, 400: { description: 'JSON-RPC error (parse error, no session)' }, 401: { description: 'no or unknown relay key' }, 404: { description: 'unknown session: initialize again' } } },
      get: { summary: 'Server-to-client SSE stream of a session (notifications/tools/list_changed)', security: [{ relay: [] }], responses: { 200: { description: 'text/event-stream' } } },
      delete: { summary: 'End a session', security: [{ relay: [] }], responses: { 200: { description: 'closed' } } },
    },
    '/api/{path}': { get: { summary: 'Forwarded unchanged to the control plane (see its /api/openapi.json)', parameters: [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }], responses: { default: { description: 'control plane answer' } } } },
  },
} as const;
