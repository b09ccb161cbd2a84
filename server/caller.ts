import { EngineError } from '../engine/errors.ts';
import { allowAll, type ResolveCaller } from '../engine/http/caller.ts';
import type { TenantStore } from './tenants/types.ts';

export const DEMO_TENANT = 'demo.main';

/**
 * Until authentication lands every request runs on one tenant. This is the one place the
 * request's tenant and user are resolved: authentication replaces this function.
 */
export function fixedTenantCaller(tenants: TenantStore, clientDb = DEMO_TENANT): ResolveCaller {
  return async () => {
    const tenant = await tenants.get(clientDb);
    if (!tenant) throw new EngineError('unavailable', `Tenant ${clientDb} does not exist; run mrs tenant create ${clientDb}.`);
    return { tenant, user: undefined, can: allowAll() };
  };
}
