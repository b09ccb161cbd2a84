import type { Caller } from '../../engine/http/caller.ts';
import type { TenantStore } from '../tenants/types.ts';
import { bearerToken, unauthorized } from './challenge.ts';
import type { KeyStateCache } from './key-state.ts';
import type { Tokens } from './tokens.ts';
import { forbidden, type LinkMaker } from './file-links.ts';

/** A caller proven by a token: the key it was issued for is what a rate limiter counts against. */
export interface AuthenticatedCaller extends Caller {
  readonly user: string;
  readonly clientDb: string;
  readonly keyId: string;
}

export interface ResolverDeps {
  readonly tenants: TenantStore;
  readonly tokens: Tokens;
  readonly keys: KeyStateCache;
  /** A request with no token may carry a signed file link instead (file-links.ts). */
  readonly fileLink?: (req: Request) => Promise<LinkMaker | undefined>;
}

/**
 * Turns `Authorization: Bearer <token>` into the caller, or throws the 401: the signature and
 * expiry are checked by jose, then the tenant must exist and the key must be live and still
 * belong to the token's user (read through the key-state cache, so revocation reaches every
 * process within its TTL). The caller runs on the token's tenant only.
 */
export function tokenResolver(deps: ResolverDeps) {
  return async (req: Request): Promise<AuthenticatedCaller> => {
    const token = bearerToken(req);
    if (token === null) {
      const link = await deps.fileLink?.(req);
      if (link) return linkCaller(deps, link);
      throw unauthorized(false);
    }
    const checked = token ? await deps.tokens.check(token) : undefined;
    if (!checked) throw unauthorized(true);
    const { claims } = checked;
    // Held until the answer is made (the caller's `release`): a cap on open tenants never closes it under the request.
    const lease = await deps.tenants.lease(claims.client_db);
    if (!lease) throw unauthorized(true);
    const { tenant, release } = lease;
    const state = await deps.keys.get(tenant, claims.key_id).catch((e) => refused(release, e));
    if (!state || state.revoked || state.username !== claims.sub) refused(release, unauthorized(true));
    return {
      tenant,
      release,
      user: claims.sub,
      clientDb: claims.client_db,
      keyId: claims.key_id,
      can: state.can,
      roles: state.roles,
      expiresAt: checked.expMs,
    };
  };
}

/** The caller of a signed file link: its maker's key, live and still its user's, reading only. */
async function linkCaller(deps: ResolverDeps, link: LinkMaker): Promise<AuthenticatedCaller> {
  const lease = await deps.tenants.lease(link.clientDb);
  if (!lease) throw forbidden('the key that made it is revoked or its user disabled');
  const { tenant, release } = lease;
  const state = await deps.keys.get(tenant, link.keyId).catch((e) => refused(release, e));
  if (!state || state.revoked || state.username !== link.user)
    refused(release, forbidden('the key that made it is revoked or its user disabled'));
  return {
    tenant,
    release,
    user: link.user,
    clientDb: link.clientDb,
    keyId: link.keyId,
    can: (collection, action) => action === 'read' && state.can(collection, action),
    roles: state.roles,
  };
}

/** A refusal after the tenant was leased: the lease ends with it, since no answer will end it. */
function refused(release: () => void, e: unknown): never {
  release();
  throw e;
}
