import { AppError } from '@agentwall/shared/errors';
import type { Principal, WorkspaceAccess } from '../services/auth.js';

export function userOf(p: Principal) {
  if (p.kind !== 'user') throw new AppError('unauthorized', 'This route needs a console session or access token.');
  return p.user;
}

export function workspaceOf(w: WorkspaceAccess | undefined): WorkspaceAccess {
  if (!w) throw new Error('route declared without a role reads a workspace');
  return w;
}

/** Path ids are positive integers; anything else is the uniform not-found. */
export function idParam(params: Record<string, string>, name = 'id', what = 'Record'): number {
  const raw = params[name] ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new AppError('not_found', `${what} not found.`);
  return Number(raw);
}

/** The workspace of a gateway-key caller (routes declared with auth: 'gateway'). */
export function gatewayWorkspace(p: Principal): number {
  if (p.kind !== 'gateway') throw new Error('gateway route without a gateway principal');
  return p.workspace_id;
}
