import { createUser, userExists } from './auth/accounts.ts';
import { TenantExistsError, type TenantStore } from './tenants/types.ts';

export const DEMO_TENANT = 'demo.main';
export const DEMO_ADMIN = 'admin';

/** Creates tenant demo.main and its user admin (role admin) when absent, as `npm start` promises. */
export async function ensureDemoTenant(tenants: TenantStore): Promise<{ createdTenant: boolean; createdAdmin: boolean }> {
  let tenant = await tenants.get(DEMO_TENANT);
  const createdTenant = !tenant;
  tenant ??= await tenants.create(DEMO_TENANT).catch(async (e) => {
    if (e instanceof TenantExistsError) return (await tenants.get(DEMO_TENANT))!; // another process made it first
    throw e;
  });
  if (await userExists(tenant, DEMO_ADMIN)) return { createdTenant, createdAdmin: false };
  try {
    await createUser(tenant, DEMO_ADMIN, ['admin']);
    return { createdTenant, createdAdmin: true };
  } catch (e) {
    if (await userExists(tenant, DEMO_ADMIN)) return { createdTenant, createdAdmin: false }; // another process made it first
    throw e;
  }
}
