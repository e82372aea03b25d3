// The OpenAPI document, generated from the same route declarations and zod
// schemas that the router validates with.
import { z } from 'zod';
import type { RouteDef } from './route.js';

const ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message'],
      properties: { type: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' }, metadata: { type: 'object' } },
    },
  },
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' });
}

export function buildOpenApi(defs: RouteDef[], extra: Record<string, Record<string, unknown>> = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = { ...extra };
  for (const d of defs) {
    const path = d.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const params = [...d.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (d.role) params.push({ name: 'X-Workspace-Id', in: 'header', required: false, schema: { type: 'string' } });
    if (d.query) {
      const qs = jsonSchema(d.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(qs.properties ?? {})) {
        params.push({ name, in: 'query', required: qs.required?.includes(name) ?? false, schema: schema as { type: string } });
      }
    }
    const op: Record<string, unknown> = {
      summary: d.summary,
      tags: [d.tag],
      parameters: params,
      security: d.auth === 'session' ? [{ session: [] }] : d.auth === 'gateway' ? [{ gateway: [] }] : [],
      responses: {
        [String(d.response?.status ?? 200)]: {
          description: d.response?.description ?? 'OK',
          ...(d.response?.schema ? { content: { [d.response.contentType ?? 'application/json']: { schema: jsonSchema(d.response.schema, 'output') } } } : {}),
        },
        default: { description: 'Error envelope', content: { 'application/json': { schema: ERROR } } },
      },
    };
    if (d.body) op['requestBody'] = { required: true, content: { 'application/json': { schema: jsonSchema(d.body, 'input') } } };
    (paths[path] ??= {})[d.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'agentwall control plane', version: '0.1.0' },
    components: {
      securitySchemes: {
        session: { type: 'http', scheme: 'bearer', description: 'Console session token (JWT) or access token (awt-…)' },
        gateway: { type: 'http', scheme: 'bearer', description: 'Gateway key (gk-svc-…)' },
      },
    },
    paths,
  };
}
