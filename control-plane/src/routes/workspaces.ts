import { z } from 'zod';
import { route, type RouteDef } from '../http/route.js';
import { createUser, createWorkspace, setMemberRole } from '../services/identity.js';
import { listMembers, listWorkspacesOf } from '../db/queries/workspaces.js';
import { ROLES } from '../services/auth.js';
import { userOf, workspaceOf } from './util.js';

const NewWorkspace = z.object({ name: z.string().trim().min(1).max(200) }).strict();
const NewUser = z.object({ email: z.email().max(320), password: z.string().min(8).max(1024), is_admin: z.boolean().optional() }).strict();
const SetMember = z
  .object({ user_id: z.number().int().positive().optional(), email: z.email().optional(), role: z.enum(ROLES) })
  .strict()
  .refine((v) => v.user_id !== undefined || v.email !== undefined, { message: 'user_id or email is required', path: ['user_id'] });

export const workspaceRoutes: RouteDef[] = [
  route({
    method: 'get', path: '/api/workspaces', tag: 'workspaces', summary: 'Workspaces I belong to, with my role.',
    auth: 'session',
    handler: async ({ deps, principal }) => ({ body: { data: await listWorkspacesOf(deps.pool, userOf(principal).id), has_more: false } }),
  }),
  route({
    method: 'post', path: '/api/workspaces', tag: 'workspaces', summary: 'Create a workspace; the creator becomes its owner.',
    auth: 'session', body: NewWorkspace,
    handler: async ({ deps, principal, body }) => {
      const ws = await createWorkspace(deps, body.name, userOf(principal).id);
      return { status: 201, body: { ...ws, role: 'owner' } };
    },
  }),
  route({
    method: 'post', path: '/api/admin/users', tag: 'admin', summary: 'Create a user (instance admin).',
    auth: 'session', instanceAdmin: true, body: NewUser,
    handler: async ({ deps, body }) => ({ status: 201, body: await createUser(deps.pool, body.email, body.password, body.is_admin ?? false) }),
  }),
  route({
    method: 'get', path: '/api/workspace/members', tag: 'workspaces', summary: 'Members of the workspace.',
    auth: 'session', role: 'member',
    handler: async ({ deps, workspace }) => ({ body: { data: await listMembers(deps.pool, workspaceOf(workspace).id), has_more: false } }),
  }),
  route({
    method: 'put', path: '/api/workspace/members', tag: 'workspaces', summary: 'Add a member or change a role (admin+).',
    auth: 'session', role: 'admin', body: SetMember,
    handler: async ({ deps, workspace, body }) => {
      const ws = workspaceOf(workspace);
      return { body: await setMemberRole(deps, ws.id, ws.role, body, body.role) };
    },
  }),
];
