import { expect, it } from 'vitest';
import { useCli } from '../support/cli.ts';
import { forgetFingerprints } from '../support/fingerprints.ts';
import { describeEachDatabase } from '../support/harness.ts';
import { tableShape } from '../support/resources-dir.ts';

/** `mrs migrate`'s last line: what it did, with a time that varies. */
const summary = (migrated: number, unchanged: number, refused = 0, did = 'migrate: %d migrated') =>
  new RegExp(`^${did.replace('%d', String(migrated))}, ${unchanged} unchanged, ${refused} refused in [\\d.]+s$`);

describeEachDatabase('mrs migrate and its dry run', (h) => {
  const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));
  const lines = (text: string) => text.trimEnd().split('\n');

  it('--dry-run prints the plan per tenant and resource and changes nothing; migrate then does it, a progress line per tenant', async () => {
    const t = (await h().service.tenants.get('demo.main'))!;
    await t.db.schema.dropIndex('work_orders_priority_idx').execute();
    // A tenant that recorded the current definitions is not planned again; --all plans it anyway (a table changed by hand).
    const nothing = lines((await mrs('migrate', '--dry-run')).err);
    expect(nothing[0]).toBe('1 tenant already up to date');
    expect(nothing[1]).toMatch(summary(0, 1, 0, 'dry run: %d to migrate'));
    const dry = await mrs('migrate', '--dry-run', '--all');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain(
      [
        'tenant demo.main',
        '  notes: nothing to change',
        '  service_requests: nothing to change',
        '  work_orders:',
        '    add index work_orders_priority_idx on (priority)',
      ].join('\n'),
    );
    expect((await tableShape(h(), 'work_orders')).indexes).not.toContain('work_orders_priority_idx');
    const done = await mrs('migrate', '--all');
    expect(done.code, done.err).toBe(0);
    expect(lines(done.err)[0]).toBe('migrated demo.main: work_orders: added index work_orders_priority_idx on (priority)');
    expect(lines(done.err)[1]).toMatch(summary(1, 0));
    expect((await tableShape(h(), 'work_orders')).indexes).toContain('work_orders_priority_idx');
    expect(lines((await mrs('migrate', '--all')).err)[0]).toBe('migrated demo.main: nothing to change');
    expect(lines((await mrs('migrate')).err)).toEqual(['1 tenant already up to date', expect.stringMatching(summary(0, 1))]);
  });

  it('--concurrency migrates the tenants that need it several at once, with a line each and a summary; the others cost nothing', async () => {
    const names = ['a1.main', 'a2.main', 'a3.main', 'a4.main', 'a5.main'];
    expect((await mrs('tenant', 'create', ...names)).code).toBe(0);
    // As tenants of a release before fingerprints: every one of them planned and migrated again.
    await forgetFingerprints(h().service);
    const r = await mrs('migrate', '--concurrency', '3');
    expect(r.code, r.err).toBe(0);
    const err = lines(r.err).filter((l) => !/^(planning|migrating) tenants/.test(l));
    expect(err.slice(0, -1).sort()).toEqual([...names, 'demo.main'].map((n) => `migrated ${n}: nothing to change`));
    expect(err.at(-1)).toMatch(summary(6, 0));
    // Not a terminal: plain progress lines and each phase's own last line, no bar redrawn.
    expect(r.err).not.toContain('\r');
    expect(r.err).toMatch(/^migrating tenants: done, 6 in /m);
    expect(lines((await mrs('migrate', '--concurrency', '3')).err)).toEqual([
      '6 tenants already up to date',
      expect.stringMatching(summary(0, 6)),
    ]);
    const bad = await mrs('migrate', '--concurrency', '0');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--concurrency must be a whole number from 1 to 64/);
  });
});
