import type { TenantDb } from '../../engine/dialects/types.ts';
import { base62, hashKey } from './keys.ts';

/**
 * Refresh tokens: `mrsr.<client_db>.<secret>`, the tenant in clear so a refresh finds its tables,
 * the secret 256 random bits. A row keeps only the token's SHA-256 (as an API key's: nothing to
 * guess, so a fast hash). Each works once; a second use ends its whole family.
 */
const TOKEN = /^mrsr\.([a-z0-9_]{1,63}\.[a-z0-9_]{1,63})\.[A-Za-z0-9]{43}$/;

/** Expired rows removed per token issued: the table stays bounded without a sweep of its own. */
const SWEEP = 32;

export interface RefreshOwner {
  readonly family: string;
  readonly key_id: string;
  readonly username: string;
}

/** The tenant a well-formed refresh token names, or undefined. */
export const tenantOfRefreshToken = (token: string): string | undefined => TOKEN.exec(token)?.[1];

const iso = (ms: number) => new Date(ms).toISOString();

/** A new token for `owner` (a new family when it has none), lasting `ttlS` from `nowMs`; written with `db` (a transaction's). */
export async function issueRefreshToken(
  t: TenantDb,
  owner: Omit<RefreshOwner, 'family'> & { family?: string },
  ttlS: number,
  nowMs: number,
  db = t.db,
): Promise<string> {
  const token = `mrsr.${t.key}.${base62(43)}`;
  const now = iso(nowMs);
  const expired = db.selectFrom('mrs_refresh_tokens').select('hash').where('expires', '<=', now).limit(SWEEP);
  await db.deleteFrom('mrs_refresh_tokens').where('hash', 'in', expired).execute();
  await db
    .insertInto('mrs_refresh_tokens')
    .values({
      hash: hashKey(token),
      family: owner.family ?? base62(22),
      key_id: owner.key_id,
      username: owner.username,
      created: now,
      expires: iso(nowMs + ttlS * 1000),
    })
    .execute();
  return token;
}

/**
 * Uses a token once, in the caller's transaction: its owner, or undefined when it is unknown,
 * expired or used. A used one ends its family (a stolen copy and its rightful holder cannot tell
 * which of them rotated it: both lose it).
 */
export async function useRefreshToken(db: TenantDb['db'], token: string, nowMs: number): Promise<RefreshOwner | undefined> {
  const hash = hashKey(token);
  const now = iso(nowMs);
  const claimed = await db
    .updateTable('mrs_refresh_tokens')
    .set({ used: now })
    .where('hash', '=', hash)
    .where('used', 'is', null)
    .where('expires', '>', now)
    .returning(['family', 'key_id', 'username'])
    .executeTakeFirst();
  if (claimed) return claimed as RefreshOwner;
  const reused = await db
    .selectFrom('mrs_refresh_tokens')
    .select('family')
    .where('hash', '=', hash)
    .where('used', 'is not', null)
    .executeTakeFirst();
  if (reused) await endFamily(db, reused.family);
  return undefined;
}

export async function endFamily(db: TenantDb['db'], family: string): Promise<void> {
  await db.deleteFrom('mrs_refresh_tokens').where('family', '=', family).execute();
}

/** Ends the refresh tokens of a key or of every key of a user (a revoked key, a disabled user). */
export async function endRefreshTokens(t: TenantDb, of: { key_id: string } | { username: string }): Promise<void> {
  const q = t.db.deleteFrom('mrs_refresh_tokens');
  await ('key_id' in of ? q.where('key_id', '=', of.key_id) : q.where('username', '=', of.username)).execute();
}
