import { DEMO_ADMIN, DEMO_TENANT } from '../service.ts';

/**
 * What `mrs serve` prints once it listens: the API's base URL, the docs page (which opens in a
 * browser without a token) and how to get an API key. A wildcard HOST is shown as localhost,
 * the address a browser on the same machine can open. `shared` names the settings the key's
 * command must be given as the server was (its database: DATABASE_URL, or a DATA_DIR of its
 * own), without their values, which may hold a password: without them `mrs` writes the key
 * into another database, which this server never reads.
 */
export function banner(
  listening: { scheme: string; host: string; port: number; basePath: string },
  shared: readonly string[] = [],
): string[] {
  const { scheme, port, basePath } = listening;
  const host = listening.host === '0.0.0.0' || listening.host === '::' ? 'localhost' : listening.host;
  const base = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}${basePath}`;
  const withSettings = shared.length === 0 ? '' : `   (with this server's ${shared.join(' and ')})`;
  return [
    `mrs serving ${base}`,
    `  API docs:   ${base}/docs`,
    `  API key:    npx mrs key create ${DEMO_TENANT} ${DEMO_ADMIN}${withSettings}`,
  ];
}
