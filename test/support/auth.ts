import { createRole, createUser, userExists } from '../../server/auth/accounts.ts';
import { createKey } from '../../server/auth/api-keys.ts';
import type { Grant } from '../../server/auth/permissions.ts';
import type { Service } from '../../server/service.ts';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { usingLease } from '../../server/tenants/types.ts';

/** Set-up helpers for users, roles, keys and tokens in any tenant of a service (no HTTP except /authenticate). */

export const AUTHENTICATE = '/v4_server/external/v1/authenticate';

/** The tenant, created when absent. */
export async function tenantOf(service: Service, clientDb: string) {
  return (await service.tenants.get(clientDb)) ?? (await service.tenants.create(clientDb));
}

/** Runs `fn` on the tenant (created when absent) holding a lease, so a cap on open tenants leaves it open meanwhile. */
async function inTenant<T>(service: Service, clientDb: string, fn: (t: TenantDb) => Promise<T>): Promise<T> {
  if (!(await service.tenants.get(clientDb))) await service.tenants.create(clientDb).catch(() => {}); // made by a neighbour meanwhile
  return usingLease(service.tenants, clientDb, (t) => fn(t!));
}

/** Makes a user (tenant created when absent); an existing user is left as it is. */
export async function ensureUser(
  service: Service,
  clientDb: string,
  username: string,
  roles: readonly string[] = ['admin'],
): Promise<void> {
  await inTenant(service, clientDb, async (t) => {
    if (!(await userExists(t, username))) await createUser(t, username, roles);
  });
}

export async function makeRole(service: Service, clientDb: string, role: string, grants: readonly Grant[]): Promise<void> {
  await inTenant(service, clientDb, (t) => createRole(t, role, grants));
}

/** A new API key of an existing user: `{ keyId, key }`. */
export async function makeKey(service: Service, clientDb: string, username: string): Promise<{ keyId: string; key: string }> {
  return inTenant(service, clientDb, (t) => createKey(t, username));
}

/** POST /authenticate through the app; throws unless it answers 200. */
export async function authenticate(service: Service, clientDb: string, username: string, apiKey: string): Promise<string> {
  const res = await service.app.request(AUTHENTICATE, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey, client_db: clientDb, username }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`authenticate ${username}@${clientDb}: ${res.status} ${text}`);
  return JSON.parse(text).access_token as string;
}

export interface Login {
  readonly token: string;
  readonly keyId: string;
  readonly key: string;
}

/** User (made when absent, with `roles`), a fresh key, and a token for it. */
export async function login(
  service: Service,
  options: { clientDb?: string; username?: string; roles?: readonly string[] } = {},
): Promise<Login> {
  const clientDb = options.clientDb ?? 'demo.main';
  const username = options.username ?? 'admin';
  await ensureUser(service, clientDb, username, options.roles ?? ['admin']);
  const made = await makeKey(service, clientDb, username);
  return { ...made, token: await authenticate(service, clientDb, username, made.key) };
}
