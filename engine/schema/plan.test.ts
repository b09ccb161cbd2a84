import { describe, expect, it } from 'vitest';
import { boolean, date, defineResource, integer, string, type Fields } from '../define.ts';
import type { LiveColumn, LiveTable } from '../dialects/live-schema.ts';
import type { FieldKind } from '../define.ts';
import { createRegistry } from '../registry.ts';
import { NO_ROWS, questionKey, type Question, type TableFacts } from './facts.ts';
import { isEmptyPlan, planTable, questionsFor } from './plan.ts';
import { tableSpec } from './table.ts';

const spec = (fields: Fields, indexes?: string[][]) =>
  tableSpec(createRegistry([defineResource({ name: 'things', fields, ...(indexes ? { indexes } : {}) })]).get('things')!, {
    idInEveryIndex: true,
  });

const col = (name: string, kinds: FieldKind[], type = kinds[0] === 'integer' ? 'integer' : 'text'): LiveColumn => ({
  name,
  type,
  kinds,
  notNull: false,
});
/**
 * A live SQLite-like table: id, the system columns (the version last among them), then `columns`;
 * `indexes` and the partial index of deleted rows every SQLite table has (schema/table.ts).
 */
const live = (columns: LiveColumn[], indexes: string[] = ['things_created_idx']): LiveTable => ({
  columns: new Map(
    [
      col('id', ['integer']),
      col('created', ['date']),
      col('updated', ['timestamp']),
      col('deleted', ['boolean']),
      col('mrs_version', ['integer']),
      ...columns,
    ].map((c) => [c.name, c]),
  ),
  indexes: new Set([...indexes, 'things_deleted_idx']),
});
const facts = (hasRows: boolean, yes: Question[] = []): TableFacts => ({ hasRows, yes: new Set(yes.map(questionKey)) });

describe('planTable', () => {
  it('makes a missing table whole', () => {
    const s = spec({ name: string({ required: true, filterable: true }) });
    const p = planTable(s, undefined, NO_ROWS);
    expect(p).toMatchObject({ create: true, addColumns: s.columns, addIndexes: s.indexes, refusals: [] });
  });

  it('finds nothing to do on a table that matches', () => {
    const s = spec({ name: string({ required: true, filterable: true }) });
    const p = planTable(s, live([col('name', ['string'])], ['things_created_idx', 'things_name_idx']), facts(true));
    expect(isEmptyPlan(p)).toBe(true);
    expect(p.refusals).toEqual([]);
  });

  it('adds the version column to a table from before it, with rows: NOT NULL, every row at 1, nothing refused', () => {
    const s = spec({ name: string({ required: true, filterable: true }) });
    const before = live([col('name', ['string'])], ['things_created_idx', 'things_name_idx']);
    (before.columns as Map<string, LiveColumn>).delete('mrs_version');
    const p = planTable(s, before, facts(true));
    expect(p.addColumns).toEqual([{ name: 'mrs_version', kind: 'integer', notNull: true, default: 1 }]);
    expect(p.refusals).toEqual([]);
  });

  it('gives a SQLite table from before it the partial index of its deleted rows, and nothing else', () => {
    const s = spec({ name: string({ required: true, filterable: true }) });
    const before = live([col('name', ['string'])], ['things_created_idx', 'things_name_idx']);
    (before.indexes as Set<string>).delete('things_deleted_idx');
    const p = planTable(s, before, facts(true));
    expect(p.addIndexes).toEqual([{ name: 'things_deleted_idx', columns: ['deleted'], deletedOnly: true }]);
    expect([p.addColumns, p.dropIndexes, p.renameColumns, p.refusals]).toEqual([[], [], [], []]);
  });

  it('adds new columns and their indexes; a column no field names is kept and listed', () => {
    const s = spec({ name: string({ nullable: true, filterable: true }), size: integer({ default: 3 }) });
    const p = planTable(s, live([col('old', ['string'])]), facts(true));
    expect(p.addColumns.map((c) => c.name)).toEqual(['name', 'size']);
    expect(p.addIndexes.map((i) => i.name)).toEqual(['things_name_idx']);
    expect(p.keptColumns).toEqual(['old']);
    expect(p.refusals).toEqual([]);
  });

  it('renames a column renamedFrom names, with its index; a second plan finds nothing to do', () => {
    const s = spec({ place: string({ nullable: true, filterable: true, renamedFrom: 'location' }) });
    const p = planTable(s, live([col('location', ['string'])], ['things_created_idx', 'things_location_idx']), facts(true));
    expect(p.renameColumns).toEqual([{ from: 'location', to: 'place' }]);
    expect(p.addColumns).toEqual([]);
    expect(p.addIndexes.map((i) => i.name)).toEqual(['things_place_idx']);
    expect(p.dropIndexes).toEqual(['things_location_idx']);
    expect(p.keptColumns).toEqual([]);
    const again = planTable(s, live([col('place', ['string'])], ['things_created_idx', 'things_place_idx']), facts(true));
    expect(isEmptyPlan(again)).toBe(true);
  });

  it('renames a column inside a composite index, replacing the index', () => {
    const s = spec(
      { a: integer({ required: true, filterable: true }), b: integer({ required: true, filterable: true, renamedFrom: 'c' }) },
      [['a', 'b']],
    );
    const p = planTable(
      s,
      live(
        [col('a', ['integer']), col('c', ['integer'])],
        ['things_created_idx', 'things_a_idx', 'things_c_idx', 'things_a_c_deleted_idx'],
      ),
      facts(true),
    );
    expect(p.addIndexes.map((i) => i.name)).toEqual(['things_b_idx', 'things_a_b_deleted_idx']);
    expect(p.dropIndexes).toEqual(['things_c_idx', 'things_a_c_deleted_idx']);
  });

  it('keeps the old column when both it and the new one exist', () => {
    const s = spec({ place: string({ nullable: true, renamedFrom: 'location' }) });
    const p = planTable(s, live([col('location', ['string']), col('place', ['string'])]), facts(true));
    expect(p.renameColumns).toEqual([]);
    expect(p.keptColumns).toEqual(['location']);
  });

  const line = (field: string) => new RegExp(`^resource things: field ${field}: [^\\n]+$`);
  const REFUSED: [string, Fields, LiveColumn[], TableFacts, RegExp, RegExp][] = [
    [
      'a new required field on a table with rows',
      { serial: string({ required: true }) },
      [],
      facts(true),
      line('serial'),
      /is new and required, but the table has rows/,
    ],
    [
      'a changed kind',
      { size: string({ nullable: true }) },
      [col('size', ['integer', 'boolean'])],
      facts(true),
      line('size'),
      /kind string does not fit its column size, of type integer \(kind integer or boolean\)/,
    ],
    [
      'a field made required while rows hold null',
      { size: integer({ required: true }) },
      [col('size', ['integer'])],
      facts(true, [{ test: 'null', column: 'size' }]),
      line('size'),
      /is required, but rows hold null/,
    ],
    [
      'a field made not nullable while rows hold null',
      { size: integer({ default: 1 }) },
      [col('size', ['integer'])],
      facts(true, [{ test: 'null', column: 'size' }]),
      line('size'),
      /is not nullable, but rows hold null/,
    ],
    [
      'a maxLength below a stored value',
      { name: string({ nullable: true, maxLength: 3 }) },
      [col('name', ['string'])],
      facts(true, [{ test: 'longer', column: 'name', than: 3 }]),
      line('name'),
      /maxLength 3 is below/,
    ],
    [
      'a kind changed within a shared column type, by the values held',
      { size: date({ nullable: true }) },
      [col('size', ['string', 'date', 'timestamp'])],
      facts(true, [{ test: 'kind', column: 'size', kind: 'date' }]),
      line('size'),
      /kind date does not fit values rows hold in its column size, of type text/,
    ],
    [
      'a renamed field whose old column holds null, made required',
      { place: string({ required: true, renamedFrom: 'location' }) },
      [col('location', ['string'])],
      facts(true, [{ test: 'null', column: 'location' }]),
      line('place'),
      /rows hold null in column location/,
    ],
  ];
  for (const [what, fields, columns, f, named, why] of REFUSED)
    it(`refuses ${what}, with one line naming resource and field`, () => {
      const p = planTable(spec(fields), live(columns), f);
      expect(p.refusals).toHaveLength(1);
      expect(p.refusals[0]).toMatch(named);
      expect(p.refusals[0]).toMatch(why);
    });

  it('takes a date field over a shared column type whose values are all dates', () => {
    expect(
      planTable(spec({ size: date({ nullable: true }) }), live([col('size', ['string', 'date', 'timestamp'])]), facts(true)).refusals,
    ).toEqual([]);
  });

  it('takes a new required field on an empty table', () => {
    expect(planTable(spec({ serial: string({ required: true }) }), live([]), facts(false)).refusals).toEqual([]);
  });
});

describe('questionsFor', () => {
  it('asks for nulls where the field takes none and for lengths where it has a maxLength, on columns whose kind fits', () => {
    const s = spec({
      a: integer({ required: true }),
      b: string({ nullable: true, maxLength: 5 }),
      c: string({ default: 'x', renamedFrom: 'cc' }),
      d: integer({ nullable: true }),
      e: string({ required: true }),
      fresh: integer({ required: true }),
    });
    const l = live([col('a', ['integer']), col('b', ['string']), col('cc', ['string']), col('d', ['integer']), col('e', ['integer'])]);
    expect(questionsFor(s, l)).toEqual([
      { test: 'null', column: 'a' },
      { test: 'longer', column: 'b', than: 5 },
      { test: 'null', column: 'cc' },
    ]);
    expect(questionsFor(s, undefined)).toEqual([]);
  });

  it('asks whether the values fit the kind where one column type holds several kinds, and the kind has a shape', () => {
    const s = spec({
      on: boolean({ default: false }),
      day: date({ nullable: true }),
      n: integer({ nullable: true }),
      text: string({ nullable: true }),
    });
    const l = live([
      col('on', ['integer', 'boolean']),
      col('day', ['string', 'date', 'timestamp']),
      col('n', ['integer', 'boolean']),
      col('text', ['string', 'date', 'timestamp']),
    ]);
    expect(questionsFor(s, l)).toEqual([
      { test: 'kind', column: 'on', kind: 'boolean' },
      { test: 'null', column: 'on' },
      { test: 'kind', column: 'day', kind: 'date' },
    ]);
    // Where the type names one kind (PostgreSQL), the type alone tells.
    expect(questionsFor(s, live([col('day', ['date'], 'date')]))).toEqual([]);
  });
});
