/** Configuration from the environment (SPEC section 8). A bad value stops the start with one line naming it. */

export interface Config {
  port: number;
  host: string;
  /** Unset: SQLite files under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  jwtSecret: string | undefined;
  tokenTtlS: number;
  refreshTokenTtlS: number;
  cursorTtlS: number;
  cursorMaxLive: number;
  /** How long the change feed keeps events (SPEC 9). */
  eventsRetentionS: number;
  /** An event stream sends a keep-alive comment at least this often, in seconds (SPEC 9). */
  eventsHeartbeatS: number;
  /** PATCH, PUT and DELETE without If-Match answer 428 (SPEC 10). */
  requireIfMatch: boolean;
  /** How long an Idempotency-Key's answer is kept, in seconds. */
  idempotencyTtlS: number;
  rateLimitMax: number;
  rateLimitWindowS: number;
  authRateLimitMax: number;
  /** Where rate-limit windows live; unset: memory on SQLite, the database on PostgreSQL; off: no limiting. */
  rateLimitStore: 'memory' | 'database' | 'off' | undefined;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  requireHttps: boolean;
  trustProxy: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Browser origins allowed to call the API (SPEC 1): `*`, a list of origins, or unset (no CORS headers). */
  corsOrigins: CorsOrigins | undefined;
  /** PostgreSQL: send repeated statements as named prepared statements (off behind a transaction pooler). */
  pgPreparedStatements: boolean;
  /** PostgreSQL: where `mrs migrate` runs its DDL (a direct connection); unset: DATABASE_URL. */
  migrateDatabaseUrl: string | undefined;
  /** A tenant nobody asked for in this long, in seconds, is closed until its next request (0: kept open). */
  tenantIdleS: number;
  /** At most this many tenants open at once: the least recently used nobody holds are closed first (0: no cap; unset: the database's default). */
  tenantOpenMax: number | undefined;
  /** How many tenants `mrs migrate` plans, and then migrates, at once. */
  migrateConcurrency: number;
  /** The folder of collection definitions; unset: resources/ beside the server. */
  resourcesDir: string | undefined;
  /** The folder of the deployment's migration steps; unset: migrations/ beside the server. */
  migrationsDir: string | undefined;
  /** Webhooks may reach loopback, private and link-local addresses (development and tests only). */
  webhookAllowPrivate: boolean;
  /** The longest wait between retries of a failing webhook delivery, in seconds. */
  webhookMaxBackoffS: number;
  /** How long a webhook may fail before it is disabled, in seconds. */
  webhookGiveUpS: number;
  /** Where attached files' bytes live (SPEC 13): DATA_DIR/files, or an S3-compatible bucket. */
  fileStore: 'disk' | 's3';
  /** The most bytes an attached file may have; a definition's maxBytes may only lower it. */
  fileMaxBytes: number;
  /** How long a file's signed content_url works, in seconds. */
  fileLinkTtlS: number;
  /** FILE_STORE=s3: the bucket and how to reach it. */
  s3: S3Config | undefined;
}

export interface S3Config {
  endpoint: string | undefined;
  bucket: string;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export type CorsOrigins = '*' | readonly string[];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const int = (name: string, min: number, max: number) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${v}"`);
  return Number(v);
};
const bool = (name: string) => (v: string) => {
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${v}"`);
};
const oneOf =
  <T extends string>(name: string, values: readonly T[]) =>
  (v: string) => {
    if (!values.includes(v as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${v}"`);
    return v as T;
  };
const text = (v: string) => v;

/**
 * `*`, or origins as a browser sends them in `Origin` (scheme, host, optional port; no path),
 * comma-separated. Each is kept in its serialized form (`HTTPS://A.example:443` is
 * `https://a.example`), the form a browser's `Origin` header has.
 */
export function corsOrigins(v: string): CorsOrigins {
  if (v.trim() === '*') return '*';
  return v.split(',').map((raw) => {
    const item = raw.trim();
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {}
    const plain =
      url && /^https?:$/.test(url.protocol) && url.username === '' && url.password === '' && /^[a-z]+:\/\/[^/?#]+\/?$/i.test(item);
    if (!url || !plain)
      throw new ConfigError(
        `CORS_ORIGINS must be * or comma-separated origins like https://app.example.com (no path), got "${item}" in "${v}"`,
      );
    return url.origin;
  });
}

function read<T>(env: Env, name: string, parse: (v: string) => T, fallback: T): T {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : parse(raw);
}

/** Where the SQLite files go when DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = './data';

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = read(env, 'DATABASE_URL', text, undefined as string | undefined);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new ConfigError(`DATABASE_URL must be a postgres:// URL (leave it unset for SQLite), got "${databaseUrl}"`);
  const migrateDatabaseUrl = read(env, 'MIGRATE_DATABASE_URL', text, undefined as string | undefined);
  if (migrateDatabaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(migrateDatabaseUrl))
    throw new ConfigError(`MIGRATE_DATABASE_URL must be a postgres:// URL, got "${migrateDatabaseUrl}"`);
  if (migrateDatabaseUrl !== undefined && databaseUrl === undefined)
    throw new ConfigError('MIGRATE_DATABASE_URL needs DATABASE_URL: it is the direct connection to the same PostgreSQL database');
  const jwtSecret = read(env, 'JWT_SECRET', text, undefined as string | undefined);
  if (jwtSecret !== undefined && jwtSecret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  const config: Config = {
    port: read(env, 'PORT', int('PORT', 0, 65535), 8080),
    host: read(env, 'HOST', text, '127.0.0.1'),
    databaseUrl,
    dataDir: read(env, 'DATA_DIR', text, DEFAULT_DATA_DIR),
    jwtSecret,
    tokenTtlS: read(env, 'TOKEN_TTL_S', int('TOKEN_TTL_S', 1, 31 * 86400), 3600),
    refreshTokenTtlS: read(env, 'REFRESH_TOKEN_TTL_S', int('REFRESH_TOKEN_TTL_S', 1, 366 * 86400), 30 * 86400),
    cursorTtlS: read(env, 'CURSOR_TTL_S', int('CURSOR_TTL_S', 1, 7 * 86400), 3900),
    cursorMaxLive: read(env, 'CURSOR_MAX_LIVE', int('CURSOR_MAX_LIVE', 1, 1e9), 100_000),
    eventsRetentionS: read(env, 'EVENTS_RETENTION_S', int('EVENTS_RETENTION_S', 1, 10 * 365 * 86400), 604_800),
    eventsHeartbeatS: read(env, 'EVENTS_HEARTBEAT_S', int('EVENTS_HEARTBEAT_S', 1, 3600), 15),
    requireIfMatch: read(env, 'REQUIRE_IF_MATCH', bool('REQUIRE_IF_MATCH'), false),
    idempotencyTtlS: read(env, 'IDEMPOTENCY_TTL_S', int('IDEMPOTENCY_TTL_S', 1, 31 * 86400), 86400),
    rateLimitMax: read(env, 'RATE_LIMIT_MAX', int('RATE_LIMIT_MAX', 1, 1e9), 1000),
    rateLimitWindowS: read(env, 'RATE_LIMIT_WINDOW_S', int('RATE_LIMIT_WINDOW_S', 1, 31 * 86400), 3600),
    authRateLimitMax: read(env, 'AUTH_RATE_LIMIT_MAX', int('AUTH_RATE_LIMIT_MAX', 1, 1e9), 20),
    rateLimitStore: read(
      env,
      'RATE_LIMIT_STORE',
      oneOf('RATE_LIMIT_STORE', ['memory', 'database', 'off'] as const),
      undefined as 'memory' | 'database' | 'off' | undefined,
    ),
    tlsCertFile: read(env, 'TLS_CERT_FILE', text, undefined as string | undefined),
    tlsKeyFile: read(env, 'TLS_KEY_FILE', text, undefined as string | undefined),
    requireHttps: read(env, 'REQUIRE_HTTPS', bool('REQUIRE_HTTPS'), false),
    trustProxy: read(env, 'TRUST_PROXY', bool('TRUST_PROXY'), false),
    corsOrigins: read(env, 'CORS_ORIGINS', corsOrigins, undefined as CorsOrigins | undefined),
    webhookAllowPrivate: read(env, 'WEBHOOK_ALLOW_PRIVATE', bool('WEBHOOK_ALLOW_PRIVATE'), false),
    webhookMaxBackoffS: read(env, 'WEBHOOK_MAX_BACKOFF_S', int('WEBHOOK_MAX_BACKOFF_S', 1, 7 * 86400), 3600),
    webhookGiveUpS: read(env, 'WEBHOOK_GIVE_UP_S', int('WEBHOOK_GIVE_UP_S', 1, 31 * 86400), 86400),
    logLevel: read(env, 'LOG_LEVEL', oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const), 'info'),
    pgPreparedStatements: read(env, 'PG_PREPARED_STATEMENTS', bool('PG_PREPARED_STATEMENTS'), true),
    migrateDatabaseUrl,
    tenantIdleS: read(env, 'TENANT_IDLE_S', int('TENANT_IDLE_S', 0, 31 * 86400), 600),
    tenantOpenMax: read(env, 'TENANT_OPEN_MAX', int('TENANT_OPEN_MAX', 0, 1_000_000), undefined as number | undefined),
    migrateConcurrency: read(env, 'MIGRATE_CONCURRENCY', int('MIGRATE_CONCURRENCY', 1, 64), 4),
    resourcesDir: read(env, 'RESOURCES_DIR', text, undefined as string | undefined),
    migrationsDir: read(env, 'MIGRATIONS_DIR', text, undefined as string | undefined),
    fileStore: read(env, 'FILE_STORE', oneOf('FILE_STORE', ['disk', 's3'] as const), 'disk'),
    fileMaxBytes: read(env, 'FILE_MAX_BYTES', int('FILE_MAX_BYTES', 1, Number.MAX_SAFE_INTEGER), 50 * 1024 * 1024),
    fileLinkTtlS: read(env, 'FILE_LINK_TTL_S', int('FILE_LINK_TTL_S', 1, 7 * 86400), 300),
    s3: undefined,
  };
  if (config.fileStore === 's3') config.s3 = s3Config(env);
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined))
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  return config;
}

function s3Config(env: Env): S3Config {
  const bucket = read(env, 'S3_BUCKET', text, '');
  if (bucket === '') throw new ConfigError('FILE_STORE=s3 needs S3_BUCKET');
  const accessKeyId = read(env, 'S3_ACCESS_KEY_ID', text, undefined as string | undefined);
  const secretAccessKey = read(env, 'S3_SECRET_ACCESS_KEY', text, undefined as string | undefined);
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or neither: the AWS default credentials)');
  return {
    endpoint: read(env, 'S3_ENDPOINT', text, undefined as string | undefined),
    bucket,
    region: read(env, 'S3_REGION', text, 'us-east-1'),
    accessKeyId,
    secretAccessKey,
    forcePathStyle: read(env, 'S3_FORCE_PATH_STYLE', bool('S3_FORCE_PATH_STYLE'), false),
  };
}

/** The configuration `mrs migrate` runs with: its DDL on MIGRATE_DATABASE_URL when set. */
export const migrationConfig = (config: Config): Config =>
  config.migrateDatabaseUrl === undefined ? config : { ...config, databaseUrl: config.migrateDatabaseUrl };
