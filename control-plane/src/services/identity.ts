import { AppError } from '@agentwall/shared/errors';
import { randomBase62, sha256Hex } from '@agentwall/shared/crypto';
import type { Deps } from '../deps.js';
import { withTransaction, type Queryable } from '../db/pool.js';
import { findUserByEmail, insertUser } from '../db/queries/users.js';
import { insertWorkspace, upsertMember, countOwners, memberRole, bumpRevision } from '../db/queries/workspaces.js';
import { insertAccessToken } from '../db/queries/tokens.js';
import { insertGatewayKey, insertRelayKey, type RelayKeyFields } from '../db/queries/keys.js';
import { hashPassword, verifyPassword, DUMMY_HASH } from './passwords.js';
import { issueSessionToken, type Role } from './auth.js';
import { initWorkspaceFirewall } from './firewall.js';

export async function login(deps: Deps, email: string, password: string) {
  deps.loginThrottle.check(email);
  const user = await findUserByEmail(deps.pool, email);
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) {
    deps.loginThrottle.fail(email);
    throw new AppError('unauthorized', 'Wrong email or password.');
  }
  deps.loginThrottle.succeed(email);
  const session = await issueSessionToken(deps, user.id);
  return { ...session, user: { id: user.id, email: user.email, is_admin: user.is_admin } };
}

export async function createUser(db: Queryable, email: string, password: string, isAdmin: boolean) {
  const row = await insertUser(db, { email, password_hash: await hashPassword(password), is_admin: isAdmin });
  if (!row) throw new AppError('conflict', 'A user with this email already exists.');
  return { id: row.id, email: row.email, is_admin: row.is_admin, created_at: row.created_at };
}

export async function createWorkspace(deps: Deps, name: string, ownerId: number) {
  return withTransaction(deps.pool, async (db) => {
    const ws = await insertWorkspace(db, name);
    await upsertMember(db, ws.id, ownerId, 'owner');
    await initWorkspaceFirewall(db, ws.id);
    return ws;
  });
}

export async function setMemberRole(deps: Deps, workspaceId: number, actorRole: Role, target: { user_id?: number | undefined; email?: string | undefined }, role: Role) {
  return withTransaction(deps.pool, async (db) => {
    let userId = target.user_id;
    if (userId === undefined && target.email !== undefined) userId = (await findUserByEmail(db, target.email))?.id;
    const exists = userId === undefined ? undefined : await db.query('SELECT 1 FROM users WHERE id = $1', [userId]);
    if (userId === undefined || !exists?.rowCount) throw new AppError('not_found', 'User not found.');
    const current = await memberRole(db, workspaceId, userId);
    // Only an owner may make or unmake owners; the last owner stays.
    if ((role === 'owner' || current === 'owner') && actorRole !== 'owner') throw new AppError('forbidden', 'Only an owner can grant or change the owner role.');
    if (current === 'owner' && role !== 'owner' && (await countOwners(db, workspaceId)) <= 1) {
      throw new AppError('conflict', 'A workspace keeps at least one owner.');
    }
    await upsertMember(db, workspaceId, userId, role);
    return { user_id: userId, role };
  });
}

export function newCredential(prefix: 'sk-svc-' | 'gk-svc-' | 'awt-'): { key: string; hash: string; prefix: string } {
  const key = `${prefix}${randomBase62(40)}`;
  return { key, hash: sha256Hex(key), prefix: key.slice(0, prefix.length + 4) };
}

export async function createAccessToken(deps: Deps, userId: number, name: string, expiresInDays: number | undefined) {
  const cred = newCredential('awt-');
  const expires = expiresInDays === undefined ? null : new Date(Date.now() + expiresInDays * 86_400_000);
  const row = await insertAccessToken(deps.pool, { user_id: userId, name, token_hash: cred.hash, token_prefix: cred.prefix, expires_at: expires });
  return { ...row, token: cred.key };
}

export async function createRelayKey(db: Queryable, workspaceId: number, userId: number | null, fields: RelayKeyFields) {
  const cred = newCredential('sk-svc-');
  const row = await insertRelayKey(db, { ...fields, workspace_id: workspaceId, key_hash: cred.hash, key_prefix: cred.prefix, created_by: userId });
  await bumpRevision(db, workspaceId);
  return { row, key: cred.key };
}

export async function createGatewayKey(db: Queryable, workspaceId: number, userId: number | null, name: string) {
  const cred = newCredential('gk-svc-');
  const row = await insertGatewayKey(db, { workspace_id: workspaceId, name, key_hash: cred.hash, key_prefix: cred.prefix, created_by: userId });
  return { row, key: cred.key };
}
