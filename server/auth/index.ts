import type { Hono } from 'hono';
import type { Config } from '../config.ts';
import type { TenantStore } from '../tenants/types.ts';
import { keyStateCache, type KeyStateCache } from './key-state.ts';
import { tokenResolver, type AuthenticatedCaller } from './resolver.ts';
import { authenticateRoute } from './route.ts';
import { signingSecret } from './secret.ts';
import { createTokens, type Tokens } from './tokens.ts';
import { fileLinks } from './file-links.ts';
import type { FileLinks } from '../../engine/files/options.ts';

export type { AuthenticatedCaller } from './resolver.ts';

export interface Auth {
  readonly tokens: Tokens;
  /** Signs files' content_url links; the resolver opens them. */
  readonly fileLinks: FileLinks;
  readonly keyStates: KeyStateCache;
  /** The token check of every /maintenance call: the caller, or a 401. */
  resolve(req: Request): Promise<AuthenticatedCaller>;
  /** `POST {base}/authenticate` and `POST {base}/tokens/refresh`. */
  readonly route: Hono;
}

export interface AuthOptions {
  readonly basePath: string;
  /** The clock of the key-state cache and of refresh tokens' expiry. */
  readonly now?: (() => number) | undefined;
  /** How long a process trusts what it read about a key (default 2 s). */
  readonly keyStateTtlMs?: number | undefined;
  /** Told who a successful `POST /authenticate` proved to be (for the request log). */
  readonly identify?: ((req: Request, who: { tenant: string; user: string }) => void) | undefined;
}

export function createAuth(
  config: Pick<Config, 'jwtSecret' | 'tokenTtlS' | 'refreshTokenTtlS'> & Partial<Pick<Config, 'fileLinkTtlS'>>,
  tenants: TenantStore,
  options: AuthOptions,
): Auth {
  const links = fileLinks(() => signingSecret(config.jwtSecret, tenants), config.fileLinkTtlS ?? 300, options.now);
  const tokens = createTokens(() => signingSecret(config.jwtSecret, tenants), config.tokenTtlS);
  const keyStates = keyStateCache({
    ...(options.now ? { now: options.now } : {}),
    ...(options.keyStateTtlMs !== undefined ? { ttlMs: options.keyStateTtlMs } : {}),
  });
  return {
    tokens,
    keyStates,
    fileLinks: links.links,
    resolve: tokenResolver({ tenants, tokens, keys: keyStates, fileLink: links.verify }),
    route: authenticateRoute(
      options.basePath,
      { tenants, tokens, refreshTtlS: config.refreshTokenTtlS, now: options.now ?? Date.now },
      options.identify,
    ),
  };
}
