import type { RouteDef } from '../http/route.js';
import { authRoutes } from './auth.js';
import { workspaceRoutes } from './workspaces.js';
import { keyRoutes } from './keys.js';
import { sidecarRoutes } from './sidecar.js';
import { toolServerRoutes } from './tool-servers.js';
import { firewallRoutes } from './firewall.js';
import { approvalRoutes } from './approvals.js';
import { auditRoutes } from './audit.js';
import { guardrailRoutes } from './guardrails.js';

export const ROUTES: RouteDef[] = [...authRoutes, ...workspaceRoutes, ...keyRoutes, ...sidecarRoutes, ...toolServerRoutes, ...firewallRoutes, ...approvalRoutes, ...auditRoutes, ...guardrailRoutes];
