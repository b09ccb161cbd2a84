import { expect, it } from 'vitest';
import { useCli } from '../support/cli.ts';
import { describeEachDatabase } from '../support/harness.ts';
import { tableShape } from '../support/resources-dir.ts';

describeEachDatabase('mrs migrate and its dry run', (h) => {
  const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));

  it('--dry-run prints the plan per tenant and resource and changes nothing; migrate then does it, a progress line per tenant', async () => {
    const t = (await h().service.tenants.get('demo.main'))!;
    await t.db.schema.dropIndex('work_orders_priority_idx').execute();
    // A tenant that recorded the current definitions is not planned again; --all plans it anyway (a table changed by hand).
    expect((await mrs('migrate', '--dry-run')).err).toBe('1 tenant already up to date\n');
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
    expect(done.err).toBe('migrated demo.main: work_orders: added index work_orders_priority_idx on (priority)\n');
    expect((await tableShape(h(), 'work_orders')).indexes).toContain('work_orders_priority_idx');
    expect((await mrs('migrate', '--all')).err).toBe('migrated demo.main: nothing to change\n');
    expect((await mrs('migrate')).err).toBe('1 tenant already up to date\n');
  });
});
