import { usingLease } from '../tenants/types.ts';
import { EngineError } from '../../engine/errors.ts';
import { userActive } from './accounts.ts';
import { findKey } from './api-keys.ts';
import type { TokenAnswer, TokenDeps } from './authenticate.ts';
import { endFamily, issueRefreshToken, tenantOfRefreshToken, useRefreshToken } from './refresh-tokens.ts';

/** The body of POST /tokens/refresh: its refresh token, or a 400. */
export function parseRefreshBody(body: unknown): string {
  const token =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).refresh_token : undefined;
  if (typeof token !== 'string' || token === '')
    throw new EngineError('invalid-request', 'The body must be a JSON object with refresh_token.', [
      { field: 'refresh_token', message: 'must be a non-empty string' },
    ]);
  return token;
}

/** One answer for an unknown, used, expired or ended refresh token, as the real service gives. */
const gone = () => new EngineError('not-found', 'The refresh token is unknown, used or expired: authenticate again.');

/**
 * Trades a refresh token for a new access token and a new refresh token of the same family, in
 * one transaction: the old one is used, the new one written, or neither. A token of a revoked
 * key or a disabled user ends its family.
 */
export async function refresh(deps: TokenDeps, token: string): Promise<TokenAnswer & { tenant: string; user: string }> {
  const clientDb = tenantOfRefreshToken(token);
  if (clientDb === undefined) throw gone();
  const now = deps.now();
  // Leased, so a cap on open tenants never closes it under this.
  const issued = await usingLease(deps.tenants, clientDb, async (tenant) => {
    if (!tenant) throw gone();
    return tenant.db.transaction().execute(async (trx) => {
      const owner = await useRefreshToken(trx, token, now);
      if (!owner) return undefined;
      const t = { ...tenant, db: trx };
      const key = await findKey(t, owner.key_id);
      if (!key || key.revoked !== null || key.username !== owner.username || !(await userActive(t, owner.username))) {
        await endFamily(trx, owner.family);
        return undefined;
      }
      return { ...owner, refresh_token: await issueRefreshToken(t, owner, deps.refreshTtlS, now, trx) };
    });
  });
  if (!issued) throw gone();
  const access_token = await deps.tokens.sign({ sub: issued.username, client_db: clientDb, key_id: issued.key_id });
  return {
    access_token,
    token_type: 'Bearer',
    expires_in: deps.tokens.ttlS,
    refresh_token: issued.refresh_token,
    tenant: clientDb,
    user: issued.username,
  };
}
