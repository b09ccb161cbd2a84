import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { COMPILED_FROM, folderToLoad } from '../../server/definition-files.js';

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      tokenTtlS: 3600,
      refreshTokenTtlS: 2592000,
      cursorTtlS: 3900,
      cursorMaxLive: 100000,
      rateLimitMax: 1000,
      rateLimitWindowS: 3600,
      authRateLimitMax: 20,
      requireHttps: false,
      trustProxy: false,
      logLevel: 'info',
      webhookAllowPrivate: false,
      webhookMaxBackoffS: 3600,
      webhookGiveUpS: 86400,
    });
  });

  it('reads good values', () => {
    const c = loadConfig({
      PORT: '0',
      DATABASE_URL: 'postgres://u@h:5432/db',
      LOG_LEVEL: 'silent',
      DATA_DIR: '/tmp/x',
      REQUIRE_HTTPS: 'true',
    });
    expect(c).toMatchObject({ port: 0, databaseUrl: 'postgres://u@h:5432/db', logLevel: 'silent', dataDir: '/tmp/x', requireHttps: true });
    expect(loadConfig({ DATABASE_URL: 'postgresql://h/db' }).databaseUrl).toBe('postgresql://h/db');
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_MAX_BACKOFF_S: '60', WEBHOOK_GIVE_UP_S: '600' })).toMatchObject({
      webhookAllowPrivate: true,
      webhookMaxBackoffS: 60,
      webhookGiveUpS: 600,
    });
  });

  it('reads the folders of definitions and steps from RESOURCES_DIR and MIGRATIONS_DIR; a compiled copy of the folder named stands for it', () => {
    expect(loadConfig({})).toMatchObject({ resourcesDir: undefined, migrationsDir: undefined });
    expect(loadConfig({ RESOURCES_DIR: 'defs', MIGRATIONS_DIR: '/srv/steps' })).toMatchObject({
      resourcesDir: 'defs',
      migrationsDir: '/srv/steps',
    });
    const builtin = mkdtempSync(join(tmpdir(), 'mrs-builtin-'));
    try {
      expect(folderToLoad(undefined, builtin)).toBe(builtin);
      expect(folderToLoad('defs', builtin)).toBe(join(process.cwd(), 'defs'));
      writeFileSync(join(builtin, COMPILED_FROM), JSON.stringify(join(process.cwd(), 'defs')));
      expect(folderToLoad('defs', builtin)).toBe(builtin);
      expect(folderToLoad('/srv/other', builtin)).toBe('/srv/other');
    } finally {
      rmSync(builtin, { recursive: true, force: true });
    }
  });

  const BAD: [string, string][] = [
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '65536'],
    ['PORT', '80.5'],
    ['PORT', '8080x'],
    ['DATABASE_URL', 'mysql://h/db'],
    ['DATABASE_URL', 'data.sqlite'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_LEVEL', 'verbose'],
    ['TOKEN_TTL_S', '0'],
    ['REFRESH_TOKEN_TTL_S', '0'],
    ['CURSOR_TTL_S', 'soon'],
    ['RATE_LIMIT_MAX', '-5'],
    ['REQUIRE_HTTPS', 'maybe'],
    ['TRUST_PROXY', '2'],
    ['JWT_SECRET', 'short'],
    ['WEBHOOK_ALLOW_PRIVATE', 'sometimes'],
    ['WEBHOOK_MAX_BACKOFF_S', '0'],
    ['WEBHOOK_MAX_BACKOFF_S', 'an hour'],
    ['WEBHOOK_GIVE_UP_S', '-1'],
  ];
  for (const [name, value] of BAD) {
    it(`refuses ${name}=${value} with one line naming ${name}`, () => {
      let error: unknown;
      try {
        loadConfig({ [name]: value });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message.startsWith(`${name} `), message).toBe(true);
      expect(message).not.toContain('\n');
    });
  }

  it('refuses a TLS certificate without its key', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: '/c.pem' })).toThrow(ConfigError);
    expect(() => loadConfig({ TLS_CERT_FILE: '/c.pem' })).toThrow(/TLS_CERT_FILE/);
  });
});
