import { describe, expect, it } from 'vitest';
import { databaseTarget, startFailure } from './start-failure.ts';

const sqlite = { port: 8080, host: '127.0.0.1', databaseUrl: undefined, dataDir: './data' };
const postgres = { ...sqlite, databaseUrl: 'postgres://app:s3cret@db.internal:6543/records' };
const failure = (message: string, code: string, syscall?: string) => Object.assign(new Error(message), { code, syscall });

describe('why a start failed, as one line naming the setting', () => {
  it.each([
    ['listen', failure('listen EADDRINUSE', 'EADDRINUSE', 'listen'), sqlite, /^PORT 8080 is already in use on 127\.0\.0\.1/],
    ['listen', failure('listen EACCES', 'EACCES', 'listen'), sqlite, /^PORT 8080 on 127\.0\.0\.1 needs privileges/],
    ['listen', failure('getaddrinfo ENOTFOUND x', 'ENOTFOUND', 'getaddrinfo'), sqlite, /^HOST 127\.0\.0\.1 is not a known address/],
    ['listen', failure('listen EADDRNOTAVAIL', 'EADDRNOTAVAIL', 'listen'), sqlite, /^HOST 127\.0\.0\.1 is not an address of this machine/],
    [
      'database',
      failure('connect ECONNREFUSED 10.0.0.1:6543', 'ECONNREFUSED'),
      postgres,
      /^DATABASE_URL: cannot use PostgreSQL at db\.internal:6543\/records: connect ECONNREFUSED/,
    ],
    ['database', failure('password authentication failed', '28P01'), postgres, /^DATABASE_URL: .*password authentication failed$/],
    ['database', failure('database "records" does not exist', '3D000'), postgres, /^DATABASE_URL: /],
    ['database', failure("EEXIST: file already exists, mkdir './data'", 'EEXIST'), sqlite, /^DATA_DIR: cannot use \.\/data: EEXIST/],
    ['database', failure('something else\nwith a second line', 'XX000'), postgres, /^something else$/],
  ] as const)('%s: %s', (step, e, config, line) => {
    const text = startFailure(step, e, config);
    expect(text).toMatch(line);
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('\n');
  });

  it('shows where a database URL points, never its user or password', () => {
    expect(databaseTarget('postgres://app:s3cret@db.internal:6543/records')).toBe('db.internal:6543/records');
    expect(databaseTarget('postgresql://localhost')).toBe('localhost:5432');
  });
});
