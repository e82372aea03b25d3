import type { Logger } from 'pino';
import type { Keyring } from '@agentwall/shared/crypto';
import type { Pool } from './db/pool.js';
import type { RevisionHub } from './services/revisions.js';
import type { InstanceKeys } from './services/instance-keys.js';
import type { Metrics } from './metrics.js';
import type { NotifyHub } from './services/notify.js';
import type { Settings } from '@agentwall/shared/config';
import type { LoginThrottle } from './services/login-throttle.js';

/** Everything a route or service needs; built once by main.ts (or a test). */
export interface Deps {
  pool: Pool;
  keyring: Keyring;
  log: Logger;
  keys: InstanceKeys;
  notify: NotifyHub;
  revisions: RevisionHub;
  metrics: Metrics;
  settings: Settings;
  loginThrottle: LoginThrottle;
}
