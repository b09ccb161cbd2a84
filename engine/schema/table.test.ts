import { describe, expect, it } from 'vitest';
import { boolean, defineResource, integer, string } from '../define.ts';
import { createRegistry } from '../registry.ts';
import { tableSpec } from './table.ts';

const things = defineResource({
  name: 'things',
  fields: {
    name: string({ required: true, filterable: true }),
    size: integer({ default: 3 }),
    shiny: boolean({ default: false, filterable: true }),
    note: string({ nullable: true }),
    fallback: string({ nullable: true, default: null }),
  },
  indexes: [['name', 'shiny']],
});

describe('tableSpec', () => {
  const resource = createRegistry([things]).get('things')!;
  const spec = tableSpec(resource, { idInEveryIndex: true });

  it('has a column per field, then the version; system columns NOT NULL, field columns nullable', () => {
    expect(spec.columns.map((c) => [c.name, c.kind, c.notNull])).toEqual([
      ['created', 'date', true],
      ['updated', 'timestamp', true],
      ['deleted', 'boolean', true],
      ['name', 'string', false],
      ['size', 'integer', false],
      ['shiny', 'boolean', false],
      ['note', 'string', false],
      ['fallback', 'string', false],
      ['mrs_version', 'integer', true],
    ]);
  });

  it('gives fields with a default that default as the column default, so existing rows get it', () => {
    const defaults = Object.fromEntries(spec.columns.filter((c) => c.default !== undefined).map((c) => [c.name, c.default]));
    expect(defaults).toEqual({ deleted: false, size: 3, shiny: false, mrs_version: 1 });
  });

  it('has one index per filterable field but id, and one per declared query pattern ending with deleted', () => {
    expect(spec.indexes).toEqual([
      { name: 'things_created_idx', columns: ['created'] },
      { name: 'things_name_idx', columns: ['name'] },
      { name: 'things_shiny_idx', columns: ['shiny'] },
      { name: 'things_name_shiny_deleted_idx', columns: ['name', 'shiny', 'deleted'] },
      // SQLite only: the deleted rows, for the ranged list of the whole table.
      { name: 'things_deleted_idx', columns: ['deleted'], deletedOnly: true },
    ]);
    // The two-column index earlier versions derived for the pattern goes.
    expect(spec.superseded).toEqual(['things_name_shiny_idx']);
  });

  it("ends a pattern's index with id too where index entries do not carry it (PostgreSQL), with one for live records, replacing both earlier forms", () => {
    const pg = tableSpec(resource, { idInEveryIndex: false });
    expect(pg.indexes.slice(-2)).toEqual([
      { name: 'things_deleted_id_idx', columns: ['deleted', 'id'] },
      { name: 'things_name_shiny_deleted_id_idx', columns: ['name', 'shiny', 'deleted', 'id'] },
    ]);
    expect(pg.indexes.slice(0, -2)).toEqual(spec.indexes.slice(0, -2));
    expect(pg.superseded).toEqual(['things_name_shiny_idx', 'things_name_shiny_deleted_idx']);
  });
});
