import { Gauge } from 'prom-client';
import { createHttpMetrics, type HttpMetrics } from '@agentwall/shared/metrics';

export interface Metrics extends HttpMetrics {
  longPolls: Gauge;
}

export function createMetrics(): Metrics {
  const base = createHttpMetrics('control-plane', { defaults: true });
  const longPolls = new Gauge({ name: 'agentwall_bundle_long_polls', help: 'Sidecar bundle long-polls waiting now.', registers: [base.registry] });
  return { ...base, longPolls };
}
