import type { TenantDb } from '../../engine/dialects/types.ts';
import type { ProblemItem } from '../../engine/errors.ts';
import { EngineError } from '../../engine/errors.ts';
import { CLIENT_DB } from '../tenants/client-db.ts';
import { usingLease, type TenantStore } from '../tenants/types.ts';
import { userActive } from './accounts.ts';
import { findKey, touchKey } from './api-keys.ts';
import { hashKey, keyIdOf, keyMatches } from './keys.ts';
import { issueRefreshToken } from './refresh-tokens.ts';
import type { Tokens } from './tokens.ts';

export interface Credentials {
  readonly api_key: string;
  readonly client_db: string;
  readonly username: string;
}

export interface TokenAnswer {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
}

/** What issuing tokens needs: the tenants, the signer, refresh tokens' lifetime and the clock. */
export interface TokenDeps {
  readonly tenants: TenantStore;
  readonly tokens: Tokens;
  readonly refreshTtlS: number;
  readonly now: () => number;
}

/** The body of POST /authenticate, or a 400 naming every field that is missing or malformed. */
export function parseCredentials(body: unknown): Credentials {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new EngineError('invalid-request', 'The body must be a JSON object with api_key, client_db and username.');
  const b = body as Record<string, unknown>;
  const errors: ProblemItem[] = [];
  for (const field of ['api_key', 'client_db', 'username'] as const)
    if (typeof b[field] !== 'string' || b[field] === '') errors.push({ field, message: 'must be a non-empty string' });
  if (typeof b.client_db === 'string' && b.client_db !== '' && !CLIENT_DB.test(b.client_db))
    errors.push({ field: 'client_db', message: 'must be <client>.<schema>, each part 1 to 63 of a-z, 0-9, _' });
  if (errors.length) throw new EngineError('invalid-request', 'The body must hold api_key, client_db and username as strings.', errors);
  return b as unknown as Credentials;
}

/** One answer for every wrong tenant, user, key, revoked key or disabled user, so a failure tells nothing. */
const refused = () => new EngineError('unauthorized', 'The api_key, client_db and username do not match a live API key.');

/** Compared against when there is no key row, so a missing key costs a hash comparison too. */
const NO_HASH = hashKey('mrs_none_none');

/** Checks the credentials and issues a token for the key, and a refresh token of a new family. */
export async function authenticate(deps: TokenDeps, c: Credentials): Promise<TokenAnswer> {
  const keyId = keyIdOf(c.api_key);
  // Leased, so a cap on open tenants never closes it under this.
  return usingLease(deps.tenants, c.client_db, (tenant) => issue(deps, c, keyId, tenant));
}

async function issue(deps: TokenDeps, c: Credentials, keyId: string | undefined, tenant: TenantDb | undefined): Promise<TokenAnswer> {
  const row = tenant && keyId ? await findKey(tenant, keyId) : undefined;
  const matches = keyMatches(c.api_key, row?.hash ?? NO_HASH);
  if (!tenant || !keyId || !row || !matches || row.revoked !== null || row.username !== c.username) throw refused();
  if (!(await userActive(tenant, c.username))) throw refused();
  const access_token = await deps.tokens.sign({ sub: c.username, client_db: c.client_db, key_id: keyId });
  const refresh_token = await issueRefreshToken(tenant, { key_id: keyId, username: c.username }, deps.refreshTtlS, deps.now());
  await touchKey(tenant, keyId);
  return { access_token, token_type: 'Bearer', expires_in: deps.tokens.ttlS, refresh_token };
}
