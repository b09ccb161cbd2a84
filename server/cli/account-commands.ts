import { createRole, createUser, listUsers } from '../auth/accounts.ts';
import { createKey, listKeys, revokeKey } from '../auth/api-keys.ts';
import { AccountError } from '../auth/errors.ts';
import { KEY_ID } from '../auth/keys.ts';
import { isRoleName, isUsername } from '../auth/names.ts';
import { parseGrant, type Grant } from '../auth/permissions.ts';
import { CommandError, UsageError, type Values } from './args.ts';
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
const list = (values: Values, name: string): string[] => {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};

/** AccountErrors (what exists, what is missing) are refused actions: exit 1 with their message. */
async function refusing<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AccountError) throw new CommandError(e.message);
    throw e;
  }
}

const GRANT_PROBLEMS = {
  form: 'must be <collection>:<action>',
  action: 'action must be read, create, update, delete or * (all)',
  collection: 'names no collection',
} as const;

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  'user create': command(
    'user create <client_db> <username> --role <role> [--role <role> ...]',
    'Create a user holding the given roles (built in: admin, reader; or made with mrs role create).',
    { role: { type: 'string', multiple: true } },
    ['client_db', 'username'],
    async (values, [db, name]) => {
      const clientDb = clientDbArg(db);
      const username = usernameArg(name);
      const roles = list(values, 'role').map(roleArg);
      if (roles.length === 0) throw new UsageError('--role is required (admin, reader, or a role made with mrs role create)');
      await withTenant(clientDb, (t) => refusing(() => createUser(t, username, roles)));
      console.error(`created user ${username} (${roles.join(', ')}) in ${clientDb}`);
    },
  ),
  'user list': command('user list <client_db>', 'List the users of a tenant with their roles.', {}, ['client_db'], async (_v, [db]) => {
    const users = await withTenant(clientDbArg(db), (t) => listUsers(t));
    process.stdout.write(table(['USERNAME', 'ROLES', 'CREATED'], users.map((u) => [u.username, u.roles.join(',') || '-', u.created])));
  }),
  'role create': command(
    'role create <client_db> <role> --grant <collection>:<action> [--grant ...]',
    'Create a role granting actions (read, create, update, delete, or *) on collections (a name, or * for all).',
    { grant: { type: 'string', multiple: true } },
    ['client_db', 'role'],
    async (values, [db, name]) => {
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
  'key create': command(
    'key create <client_db> <username>',
    'Make an API key for a user. Prints only the key on stdout; it is shown this once and stored only as a hash.',
    {},
    ['client_db', 'username'],
    async (_v, [db, name]) => {
      const clientDb = clientDbArg(db);
      const username = usernameArg(name);
      const made = await withTenant(clientDb, (t) => refusing(() => createKey(t, username)));
      process.stdout.write(`${made.key}\n`);
      console.error(`created key ${made.keyId} for ${username} in ${clientDb}; it is shown only now`);
    },
  ),
  'key list': command(
    'key list <client_db>',
    'List the API keys of a tenant: ids, users, created, last used, revoked (never the keys).',
    {},
    ['client_db'],
    async (_v, [db]) => {
      const keys = await withTenant(clientDbArg(db), (t) => listKeys(t));
      const rows = keys.map((k) => [k.key_id, k.username, k.created, k.last_used ?? '-', k.revoked ?? '-']);
      process.stdout.write(table(['KEY_ID', 'USERNAME', 'CREATED', 'LAST_USED', 'REVOKED'], rows));
    },
  ),
  'key revoke': command(
    'key revoke <client_db> <key-id>',
    'Revoke an API key; its tokens stop working within 5 seconds in every server process.',
    {},
    ['client_db', 'key-id'],
    async (_v, [db, id]) => {
      const clientDb = clientDbArg(db);
      if (!id || !KEY_ID.test(id)) throw new UsageError(`key-id must be letters and digits, as mrs key list shows it (got "${id}")`);
      await withTenant(clientDb, (t) => refusing(() => revokeKey(t, id)));
      console.error(`revoked key ${id} in ${clientDb}`);
    },
  ),
};
