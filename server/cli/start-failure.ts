import type { Config } from '../config.ts';

/**
 * Why `mrs serve` could not start, as one line naming the setting to change (SPEC section 8).
 * Which step failed decides the setting: opening the databases names DATABASE_URL (or DATA_DIR
 * for SQLite), listening names PORT or HOST. Nothing here prints a password.
 */
export type StartStep = 'database' | 'listen';

type Failure = Error & { code?: unknown; syscall?: unknown };

/** Socket and DNS codes of a PostgreSQL server that cannot be reached, and SQLSTATE classes 08 (connection), 28 (login), 3D (no such database). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const PG_REFUSED = /^(08|28|3D)/;
/** File-system codes of a data directory that cannot be used. */
const UNUSABLE_DIR = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT', 'ENOSPC', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.trim();

/** `host:port/database` of a postgres:// URL: what it points at, without its user or password. */
export function databaseTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the URL given';
  }
}

export function startFailure(step: StartStep, e: unknown, config: Pick<Config, 'port' | 'host' | 'databaseUrl' | 'dataDir'>): string {
  const err = e as Failure;
  const code = typeof err?.code === 'string' ? err.code : '';
  const why = firstLine(e);
  if (step === 'database') {
    if (config.databaseUrl !== undefined && (UNREACHABLE.has(code) || PG_REFUSED.test(code)))
      return `DATABASE_URL: cannot use PostgreSQL at ${databaseTarget(config.databaseUrl)}: ${why}`;
    if (config.databaseUrl === undefined && UNUSABLE_DIR.has(code)) return `DATA_DIR: cannot use ${config.dataDir}: ${why}`;
    return why;
  }
  if (code === 'EADDRINUSE') return `PORT ${config.port} is already in use on ${config.host}: set PORT to a free port`;
  if (code === 'EACCES' && err.syscall === 'listen')
    return `PORT ${config.port} on ${config.host} needs privileges this process lacks: set PORT above 1023`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return `HOST ${config.host} is not a known address (${code}): set HOST to an address of this machine`;
  if (code === 'EADDRNOTAVAIL') return `HOST ${config.host} is not an address of this machine (${code})`;
  return why;
}
