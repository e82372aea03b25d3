// Credential resolution for /api routes. Each credential works only on its
// own surfaces (CONTRACT §2): sessions and access tokens on console routes,
// gateway keys on sidecar routes, relay keys nowhere under /api.
import { jwtVerify, SignJWT } from 'jose';
import { AppError } from '@agentwall/shared/errors';
import { sha256Hex } from '@agentwall/shared/crypto';
import type { Deps } from '../deps.js';
import type { AuthKind } from '../http/route.js';
import { findUserById, type UserRow } from '../db/queries/users.js';
import { findAccessTokenUser } from '../db/queries/tokens.js';
import { findGatewayKey } from '../db/queries/keys.js';
import { membershipsOf } from '../db/queries/workspaces.js';

export const ROLES = ['member', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export type Principal =
  | { kind: 'user'; user: Pick<UserRow, 'id' | 'email' | 'is_admin'>; via: 'session' | 'access_token' }
  | { kind: 'gateway'; workspace_id: number; key_id: number }
  | { kind: 'anonymous' };

export interface WorkspaceAccess {
  id: number;
  role: Role;
}

const SESSION_TTL_S = 12 * 3600;

export function roleAtLeast(role: Role, min: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(min);
}

export async function issueSessionToken(deps: Deps, userId: number): Promise<{ token: string; expires_at: string }> {
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(userId))
    .setIssuer('agentwall')
    .setAudience('agentwall-console')
    .setIssuedAt(now)
    .setExpirationTime(now + SESSION_TTL_S)
    .sign(deps.keys.sessionKey);
  return { token, expires_at: new Date((now + SESSION_TTL_S) * 1000).toISOString() };
}

function bearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

export async function authenticate(deps: Deps, header: string | undefined, kind: AuthKind): Promise<Principal> {
  if (kind === 'none' || kind === 'signature') return { kind: 'anonymous' };
  const token = bearer(header);
  if (!token) throw new AppError('unauthorized', 'Missing credential: send Authorization: Bearer <token>.');
  if (token.startsWith('sk-svc-')) throw new AppError('unauthorized', 'Relay keys are not accepted on /api routes.');
  if (kind === 'gateway') {
    if (!token.startsWith('gk-svc-')) throw new AppError('unauthorized', 'This route needs a gateway key (gk-svc-…).');
    const key = await findGatewayKey(deps.pool, sha256Hex(token));
    if (!key) throw new AppError('unauthorized', 'Unknown or revoked gateway key.');
    return { kind: 'gateway', workspace_id: key.workspace_id, key_id: key.id };
  }
  if (token.startsWith('gk-svc-')) throw new AppError('unauthorized', 'Gateway keys are not accepted on console routes.');
  if (token.startsWith('awt-')) {
    const user = await findAccessTokenUser(deps.pool, sha256Hex(token));
    if (!user) throw new AppError('unauthorized', 'Unknown, expired or revoked access token.');
    return { kind: 'user', user, via: 'access_token' };
  }
  let sub: string | undefined;
  try {
    const { payload } = await jwtVerify(token, deps.keys.sessionKey, { issuer: 'agentwall', audience: 'agentwall-console', algorithms: ['HS256'] });
    sub = payload.sub;
  } catch {
    throw new AppError('unauthorized', 'Invalid or expired session token.');
  }
  const user = sub && /^\d+$/.test(sub) ? await findUserById(deps.pool, Number(sub)) : undefined;
  if (!user) throw new AppError('unauthorized', 'Invalid or expired session token.');
  return { kind: 'user', user, via: 'session' };
}

export async function resolveWorkspace(deps: Deps, principal: Principal, header: string, min: Role): Promise<WorkspaceAccess> {
  if (principal.kind !== 'user') throw new AppError('unauthorized', 'This route needs a console session or access token.');
  const memberships = await membershipsOf(deps.pool, principal.user.id);
  let access: WorkspaceAccess | undefined;
  if (header) {
    if (!/^[1-9]\d{0,15}$/.test(header)) throw new AppError('invalid_request', 'X-Workspace-Id must be a workspace id (positive integer).');
    access = memberships.find((m) => m.id === Number(header));
    if (!access) throw new AppError('forbidden', 'You are not a member of this workspace.');
  } else if (memberships.length === 1) {
    access = memberships[0];
  } else if (memberships.length === 0) {
    throw new AppError('forbidden', 'You are not a member of any workspace.');
  } else {
    throw new AppError('invalid_request', 'X-Workspace-Id is required: you belong to several workspaces.');
  }
  if (!access) throw new AppError('forbidden', 'You are not a member of this workspace.');
  if (!roleAtLeast(access.role, min)) throw new AppError('forbidden', `This action needs the ${min} role or higher.`);
  return access;
}
