import { Counter, Gauge } from 'prom-client';
import { createHttpMetrics, type HttpMetrics } from '@agentwall/shared/metrics';

export interface SidecarMetrics extends HttpMetrics {
  bundleRevision: Gauge;
  bundleRefused: Counter;
}

export function createSidecarMetrics(): SidecarMetrics {
  const base = createHttpMetrics('sidecar', { defaults: true });
  return {
    ...base,
    bundleRevision: new Gauge({ name: 'agentwall_bundle_revision', help: 'Revision of the config bundle in force.', registers: [base.registry] }),
    bundleRefused: new Counter({ name: 'agentwall_bundle_refused_total', help: 'Bundles refused (bad signature, bad shape, rollback).', registers: [base.registry] }),
  };
}
