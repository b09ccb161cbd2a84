import type { TenantDb } from '../../engine/dialects/types.ts';
import { userExists } from './accounts.ts';
import { AccountError } from './errors.ts';
import { generateKey } from './keys.ts';
import { endRefreshTokens } from './refresh-tokens.ts';

/** API key rows of one tenant. Only the hash of a key is stored; the key itself is returned once. */

export interface KeyRow {
  readonly key_id: string;
  readonly username: string;
  readonly created: string;
  readonly last_used: string | null;
  readonly revoked: string | null;
}

export interface StoredKey extends KeyRow {
  readonly hash: string;
}

const PUBLIC_COLUMNS = ['key_id', 'username', 'created', 'last_used', 'revoked'] as const;

/** Makes a key for an existing user; the returned key is the only copy there will ever be. */
export async function createKey(t: TenantDb, username: string): Promise<{ keyId: string; key: string }> {
  if (!(await userExists(t, username))) throw new AccountError('missing', `user ${username} does not exist in ${t.key}`);
  const { keyId, key, hash } = generateKey();
  await t.db.insertInto('mrs_api_keys').values({ key_id: keyId, username, hash, created: new Date().toISOString() }).execute();
  return { keyId, key };
}

export async function listKeys(t: TenantDb): Promise<KeyRow[]> {
  return (await t.db.selectFrom('mrs_api_keys').select(PUBLIC_COLUMNS).orderBy('created').orderBy('key_id').execute()) as KeyRow[];
}

export async function findKey(t: TenantDb, keyId: string): Promise<StoredKey | undefined> {
  return (await t.db
    .selectFrom('mrs_api_keys')
    .select([...PUBLIC_COLUMNS, 'hash'])
    .where('key_id', '=', keyId)
    .executeTakeFirst()) as StoredKey | undefined;
}

export async function revokeKey(t: TenantDb, keyId: string): Promise<void> {
  const key = await findKey(t, keyId);
  if (!key) throw new AccountError('missing', `key ${keyId} does not exist in ${t.key}`);
  if (key.revoked) throw new AccountError('exists', `key ${keyId} was already revoked at ${key.revoked}`);
  await t.db.updateTable('mrs_api_keys').set({ revoked: new Date().toISOString() }).where('key_id', '=', keyId).execute();
  await endRefreshTokens(t, { key_id: keyId });
}

export async function touchKey(t: TenantDb, keyId: string, at = new Date()): Promise<void> {
  await t.db.updateTable('mrs_api_keys').set({ last_used: at.toISOString() }).where('key_id', '=', keyId).execute();
}
