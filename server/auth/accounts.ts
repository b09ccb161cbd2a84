import type { TenantDb } from '../../engine/dialects/types.ts';
import { AccountError } from './errors.ts';
import { BUILT_IN_ROLES, isBuiltInRole, type Grant } from './permissions.ts';
import { endRefreshTokens } from './refresh-tokens.ts';

/** Users and roles of one tenant. Names are checked by the caller (names.ts). */

const stamp = () => new Date().toISOString();

export async function userExists(t: TenantDb, username: string): Promise<boolean> {
  return (await t.db.selectFrom('mrs_users').select('username').where('username', '=', username).executeTakeFirst()) !== undefined;
}

/** A user that exists and is not disabled: the only kind whose keys and tokens work. */
export async function userActive(t: TenantDb, username: string): Promise<boolean> {
  const row = await t.db.selectFrom('mrs_users').select('disabled').where('username', '=', username).executeTakeFirst();
  return row !== undefined && row.disabled === null;
}

/** Disables a user from now on; its keys and tokens are refused (within the key-state TTL in servers). */
export async function disableUser(t: TenantDb, username: string): Promise<void> {
  await setDisabled(t, username, true);
}

/** Lets a disabled user's keys and unexpired tokens work again. */
export async function enableUser(t: TenantDb, username: string): Promise<void> {
  await setDisabled(t, username, false);
}

async function setDisabled(t: TenantDb, username: string, disabled: boolean): Promise<void> {
  const row = await t.db.selectFrom('mrs_users').select('disabled').where('username', '=', username).executeTakeFirst();
  if (!row) throw new AccountError('missing', `user ${username} does not exist in ${t.key}`);
  if (disabled && row.disabled !== null) throw new AccountError('exists', `user ${username} was already disabled at ${row.disabled}`);
  if (!disabled && row.disabled === null) throw new AccountError('exists', `user ${username} is not disabled`);
  await t.db
    .updateTable('mrs_users')
    .set({ disabled: disabled ? stamp() : null })
    .where('username', '=', username)
    .execute();
  // Enabled again, the user authenticates again: its old refresh tokens stay ended.
  if (disabled) await endRefreshTokens(t, { username });
}

async function roleExists(t: TenantDb, role: string): Promise<boolean> {
  if (isBuiltInRole(role)) return true;
  return (await t.db.selectFrom('mrs_roles').select('name').where('name', '=', role).executeTakeFirst()) !== undefined;
}

export async function createUser(t: TenantDb, username: string, roles: readonly string[]): Promise<void> {
  for (const role of roles) if (!(await roleExists(t, role))) throw new AccountError('missing', `role ${role} does not exist in ${t.key}`);
  await t.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('mrs_users')
      .values({ username, created: stamp() })
      .onConflict((oc) => oc.column('username').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
      throw new AccountError('exists', `user ${username} already exists in ${t.key}`);
    const unique = [...new Set(roles)];
    if (unique.length)
      await trx
        .insertInto('mrs_user_roles')
        .values(unique.map((role) => ({ username, role })))
        .execute();
  });
}

export interface UserRow {
  readonly username: string;
  readonly created: string;
  /** When the user was disabled; undefined while it is enabled. */
  readonly disabled: string | undefined;
  readonly roles: string[];
}

export async function listUsers(t: TenantDb): Promise<UserRow[]> {
  const users = await t.db.selectFrom('mrs_users').select(['username', 'created', 'disabled']).orderBy('username').execute();
  const links = await t.db.selectFrom('mrs_user_roles').select(['username', 'role']).orderBy('role').execute();
  return users.map((u) => ({
    username: u.username,
    created: u.created,
    disabled: u.disabled ?? undefined,
    roles: links.filter((l) => l.username === u.username).map((l) => l.role as string),
  }));
}

export async function createRole(t: TenantDb, role: string, grants: readonly Grant[]): Promise<void> {
  if (isBuiltInRole(role)) throw new AccountError('exists', `role ${role} already exists (built in)`);
  await t.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('mrs_roles')
      .values({ name: role, created: stamp() })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new AccountError('exists', `role ${role} already exists in ${t.key}`);
    const unique = [...new Map(grants.map((g) => [`${g.collection}:${g.action}`, g])).values()];
    if (unique.length)
      await trx
        .insertInto('mrs_role_grants')
        .values(unique.map((g) => ({ role, ...g })))
        .execute();
  });
}

export interface RoleRow {
  readonly name: string;
  /** Undefined for a built-in role. */
  readonly created: string | undefined;
  readonly grants: readonly Grant[];
}

/** The built-in roles, then the tenant's own by name, each with its grants. */
export async function listRoles(t: TenantDb): Promise<RoleRow[]> {
  const roles = await t.db.selectFrom('mrs_roles').select(['name', 'created']).orderBy('name').execute();
  const grants = (await t.db
    .selectFrom('mrs_role_grants')
    .select(['role', 'collection', 'action'])
    .orderBy('collection')
    .orderBy('action')
    .execute()) as (Grant & { role: string })[];
  return [
    ...Object.entries(BUILT_IN_ROLES).map(([name, g]) => ({ name, created: undefined, grants: g })),
    ...roles.map((r) => ({
      name: r.name as string,
      created: r.created as string,
      grants: grants.filter((g) => g.role === r.name).map(({ collection, action }) => ({ collection, action })),
    })),
  ];
}

/** The names of a user's roles. */
export async function rolesOf(t: TenantDb, username: string): Promise<string[]> {
  return (await t.db.selectFrom('mrs_user_roles').select('role').where('username', '=', username).execute()).map((r) => r.role as string);
}

/** Every grant a user holds through its roles (built-in and custom; the names rolesOf reads). */
export async function grantsOf(t: TenantDb, roles: readonly string[]): Promise<Grant[]> {
  const grants: Grant[] = roles.flatMap((r) => BUILT_IN_ROLES[r] ?? []);
  const custom = roles.filter((r) => !isBuiltInRole(r));
  if (custom.length) {
    const rows = await t.db.selectFrom('mrs_role_grants').select(['collection', 'action']).where('role', 'in', custom).execute();
    grants.push(...(rows as Grant[]));
  }
  return grants;
}
