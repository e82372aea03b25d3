// A Prometheus registry per process (never the global one, so a control
// plane and a sidecar can share a Node process under `agentwall up`).
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
}

export function createHttpMetrics(service: string, opts: { defaults?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'agentwall_http_requests_total',
    help: 'HTTP requests answered, by route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'agentwall_http_request_duration_seconds',
    help: 'Time to answer HTTP requests (long-polls included).',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60],
    registers: [registry],
  });
  return { registry, requests, duration };
}
