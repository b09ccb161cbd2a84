import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, migrationConfig } from '../../server/config.ts';

describe('configuration: PostgreSQL behind a pooler', () => {
  it('sends named prepared statements unless PG_PREPARED_STATEMENTS=false', () => {
    expect(loadConfig({}).pgPreparedStatements).toBe(true);
    expect(loadConfig({ PG_PREPARED_STATEMENTS: 'false' }).pgPreparedStatements).toBe(false);
    expect(loadConfig({ PG_PREPARED_STATEMENTS: 'true' }).pgPreparedStatements).toBe(true);
  });

  it('refuses a PG_PREPARED_STATEMENTS that is not true or false, naming it', () => {
    expect(() => loadConfig({ PG_PREPARED_STATEMENTS: 'sometimes' })).toThrow(ConfigError);
    expect(() => loadConfig({ PG_PREPARED_STATEMENTS: 'sometimes' })).toThrow(/^PG_PREPARED_STATEMENTS must be true or false/);
  });

  it('migrates on MIGRATE_DATABASE_URL when set, and serves on DATABASE_URL', () => {
    const env = { DATABASE_URL: 'postgres://app@pooler:6432/db', MIGRATE_DATABASE_URL: 'postgres://owner@db:5432/db' };
    const config = loadConfig(env);
    expect(config.databaseUrl).toBe(env.DATABASE_URL);
    expect(migrationConfig(config).databaseUrl).toBe(env.MIGRATE_DATABASE_URL);
    expect(migrationConfig(loadConfig({ DATABASE_URL: env.DATABASE_URL })).databaseUrl).toBe(env.DATABASE_URL);
  });

  it('refuses a MIGRATE_DATABASE_URL that is not postgres://, or without DATABASE_URL, naming it', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db', MIGRATE_DATABASE_URL: 'mysql://h/db' })).toThrow(
      /^MIGRATE_DATABASE_URL must be a postgres:\/\/ URL/,
    );
    expect(() => loadConfig({ MIGRATE_DATABASE_URL: 'postgres://h/db' })).toThrow(/^MIGRATE_DATABASE_URL needs DATABASE_URL/);
  });
});
