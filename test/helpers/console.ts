// A started system plus console helpers: calls as a given user in a named
// workspace, and users created with a role.
import { startSystem } from './system.js';
import type { T } from './tap.js';

export const USER_PASSWORD = 'password-123';

export async function startConsole(t: T, server: string) {
  const sys = await startSystem(t, server);
  const admin = await sys.session();
  // Always name the workspace: the admin may later belong to several.
  const as = (token: string, ws = 1) => (method: string, path: string, body?: unknown) =>
    sys.call('cp', method, path, { token, headers: { 'x-workspace-id': String(ws) }, ...(body === undefined ? {} : { body }) });
  const api = as(admin);
  const user = async (email: string, role: string): Promise<string> => {
    await api('POST', '/api/admin/users', { email, password: USER_PASSWORD });
    await api('PUT', '/api/workspace/members', { email, role });
    return (await sys.call('cp', 'POST', '/api/auth/login', { body: { email, password: USER_PASSWORD } })).json.token as string;
  };
  return { sys, admin, as, api, user };
}
