import type { TenantDb } from '../../engine/dialects/types.ts';
import { createRole, createUser, disableUser, enableUser, listRoles, listUsers } from '../auth/accounts.ts';
import { createKey, listKeys, revokeKey } from '../auth/api-keys.ts';
import { AccountError } from '../auth/errors.ts';
import { KEY_ID } from '../auth/keys.ts';
import { KEY_STATE_TTL_MS } from '../auth/key-state.ts';
import { isRoleName, isUsername } from '../auth/names.ts';
import { parseGrant, type Grant } from '../auth/permissions.ts';
import { CommandError, listOf as list, UsageError } from './args.ts';
import { clientDbArg, command, withTenant, type Command } from './command.ts';
import { table } from './table.ts';

/** Users, roles and API keys of a tenant. Secrets never reach stderr; `key create` prints only the key on stdout. */

const usernameArg = (v: string | undefined) => {
  if (!isUsername(v)) throw new UsageError(`username must be 1 to 64 of A-Z, a-z, 0-9, _ . @ - (got "${v}")`);
  return v;
};
const roleArg = (v: string | undefined) => {
  if (!isRoleName(v)) throw new UsageError(`role must be 1 to 63 of a-z, 0-9, _ (got "${v}")`);
  return v;
};

/** What the help says about revocation, from the cache's own TTL (so the two cannot disagree). */
const TAKES_EFFECT = `within ${KEY_STATE_TTL_MS / 1000} s in every server process`;

/** AccountErrors (what exists, what is missing) are refused actions: exit 1 with their message. */
async function refusing<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AccountError) throw new CommandError(e.message);
    throw e;
  }
}

/** `user disable` and `user enable`: the same arguments and answers, opposite changes. */
const userSwitch = (verb: 'disable' | 'enable', summary: string, change: (t: TenantDb, username: string) => Promise<void>) =>
  command(`user ${verb}`, summary, { args: ['client_db', 'username'] }, async ([db, name]) => {
    const clientDb = clientDbArg(db);
    const username = usernameArg(name);
    await withTenant(clientDb, (t) => refusing(() => change(t, username)));
    console.error(`${verb}d user ${username} in ${clientDb}`);
  });

const GRANT_PROBLEMS = {
  form: 'must be <collection>:<action>',
  action: 'action must be read, create, update, delete or * (all)',
  collection: 'names no collection',
} as const;

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  'user create': command(
    'user create',
    'Create a user holding the given roles (built in: admin, reader; or made with mrs role create).',
    {
      args: ['client_db', 'username'],
      options: [{ flags: '--role <role>', description: 'a role to hold (repeat for more)', repeatable: true, required: true }],
    },
    async ([db, name], values) => {
      const clientDb = clientDbArg(db);
      const username = usernameArg(name);
      const roles = list(values, 'role').map(roleArg);
      if (roles.length === 0) throw new UsageError('--role is required (admin, reader, or a role made with mrs role create)');
      await withTenant(clientDb, (t) => refusing(() => createUser(t, username, roles)));
      console.error(`created user ${username} (${roles.join(', ')}) in ${clientDb}`);
    },
  ),
  'user list': command(
    'user list',
    'List the users of a tenant with their roles and when they were disabled.',
    { args: ['client_db'] },
    async ([db]) => {
      const users = await withTenant(clientDbArg(db), (t) => listUsers(t));
      const rows = users.map((u) => [u.username, u.roles.join(',') || '-', u.created, u.disabled ?? '-']);
      process.stdout.write(table(['USERNAME', 'ROLES', 'CREATED', 'DISABLED'], rows));
    },
  ),
  'user disable': userSwitch(
    'disable',
    `Disable a user: its tokens and API keys stop working ${TAKES_EFFECT}, and it cannot authenticate.`,
    disableUser,
  ),
  'user enable': userSwitch('enable', `Enable a disabled user again: its keys and unexpired tokens work ${TAKES_EFFECT}.`, enableUser),
  'role create': command(
    'role create',
    'Create a role granting actions (read, create, update, delete, or *) on collections (a name, or * for all).',
    {
      args: ['client_db', 'role'],
      options: [
        {
          flags: '--grant <collection:action>',
          description: 'e.g. notes:read or *:read (repeat for more)',
          repeatable: true,
          required: true,
        },
      ],
    },
    async ([db, name], values) => {
      const clientDb = clientDbArg(db);
      const role = roleArg(name);
      const texts = list(values, 'grant');
      if (texts.length === 0) throw new UsageError('--grant <collection>:<action> is required');
      await withTenant(clientDb, async (t, s) => {
        const collections = new Set(s.engine.registry.resources.keys());
        const grants = texts.map((text): Grant => {
          const g = parseGrant(text, collections);
          if (typeof g === 'string')
            throw new UsageError(
              `--grant ${text}: ${GRANT_PROBLEMS[g]}${g === 'collection' ? ` (collections: ${[...collections].join(', ')}, or *)` : ''}`,
            );
          return g;
        });
        await refusing(() => createRole(t, role, grants));
      });
      console.error(`created role ${role} in ${clientDb}`);
    },
  ),
  'role list': command(
    'role list',
    'List the roles of a tenant (built-in ones too) with their grants.',
    { args: ['client_db'] },
    async ([db]) => {
      const roles = await withTenant(clientDbArg(db), (t) => listRoles(t));
      const rows = roles.map((r) => [r.name, r.grants.map((g) => `${g.collection}:${g.action}`).join(',') || '-', r.created ?? 'built in']);
      process.stdout.write(table(['ROLE', 'GRANTS', 'CREATED'], rows));
    },
  ),
  'key create': command(
    'key create',
    'Make an API key for a user. Prints only the key on stdout; it is shown this once and stored only as a hash.',
    { args: ['client_db', 'username'] },
    async ([db, name]) => {
      const clientDb = clientDbArg(db);
      const username = usernameArg(name);
      const made = await withTenant(clientDb, (t) => refusing(() => createKey(t, username)));
      process.stdout.write(`${made.key}\n`);
      console.error(`created key ${made.keyId} for ${username} in ${clientDb}; it is shown only now`);
    },
  ),
  'key list': command(
    'key list',
    'List the API keys of a tenant: ids, users, created, last used, revoked (never the keys).',
    { args: ['client_db'] },
    async ([db]) => {
      const keys = await withTenant(clientDbArg(db), (t) => listKeys(t));
      const rows = keys.map((k) => [k.key_id, k.username, k.created, k.last_used ?? '-', k.revoked ?? '-']);
      process.stdout.write(table(['KEY_ID', 'USERNAME', 'CREATED', 'LAST_USED', 'REVOKED'], rows));
    },
  ),
  'key revoke': command(
    'key revoke',
    `Revoke an API key; its tokens stop working ${TAKES_EFFECT}.`,
    { args: ['client_db', 'key-id'] },
    async ([db, id]) => {
      const clientDb = clientDbArg(db);
      if (!id || !KEY_ID.test(id)) throw new UsageError(`key-id must be letters and digits, as mrs key list shows it (got "${id}")`);
      await withTenant(clientDb, (t) => refusing(() => revokeKey(t, id)));
      console.error(`revoked key ${id} in ${clientDb}`);
    },
  ),
};
