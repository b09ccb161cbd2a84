import { randomBytes } from 'node:crypto';
import type { TenantStore } from '../tenants/types.ts';

export const SECRET_NAME = 'jwt-secret';

/**
 * The token signing secret: JWT_SECRET when set; otherwise 256 random bits generated once and
 * kept where every process on the same data finds it (DATA_DIR/jwt-secret on SQLite, the
 * `mrs_server.settings` table on PostgreSQL).
 */
export async function signingSecret(configured: string | undefined, tenants: TenantStore): Promise<string> {
  if (configured !== undefined) return configured;
  return tenants.serverValue(SECRET_NAME, () => randomBytes(32).toString('base64url'));
}
