import type { Migration } from 'kysely';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import type { OldSteps } from './steps.ts';

/**
 * Cursors: a snapshot of ordered ids, packed as fixed-width hex in chunks of a few thousand ids
 * per row, so creating one is a single INSERT ... SELECT and any page reads at most two rows.
 * Every chunk row carries the cursor's metadata; `ids` is last so metadata reads skip it.
 */
export const cursors = (t: TenantDb, steps: OldSteps): Migration => ({
  async up(db) {
    const table = db.schema
      .createTable('mrs_cursors')
      .ifNotExists()
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('chunk', 'integer', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('width', 'integer', (c) => c.notNull())
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('query', 'text', (c) => c.notNull())
      .addColumn('page_size', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('ids', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('mrs_cursors_pk', ['id', 'chunk']);
    await (steps.cursorTable?.(table) ?? table).execute();
    await db.schema.createIndex('mrs_cursors_expires_idx').ifNotExists().on('mrs_cursors').column('expires_at').execute();
  },
});
