import { describe, expect, expectTypeOf, it } from 'vitest';
import workOrders from '../resources/work-orders.ts';
import {
  boolean,
  date,
  defineResource,
  integer,
  isDate,
  isTimestamp,
  string,
  timestamp,
  type CreateBodyOf,
  type Fields,
  type PatchBodyOf,
  type RecordOf,
} from './define.ts';

describe('defineResource', () => {
  it('returns a frozen definition with frozen fields', () => {
    const d = defineResource({ name: 'assets', fields: { name: string({ required: true }) } });
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.fields)).toBe(true);
    expect(Object.isFrozen(d.fields.name)).toBe(true);
    expect(d.fields.name).toEqual({ kind: 'string', required: true });
  });

  const BAD: [string, string, Fields, RegExp][] = [
    ['Assets', 'a bad name', {}, /^resource Assets: name must match/],
    ['mrs_things', 'a reserved name', {}, /^resource mrs_things: names starting with mrs_/],
    ['a', 'a bad field name', { 'Bad-Name': string({ required: true }) }, /^resource a: field Bad-Name: name must match/],
    ['a', 'a system field', { id: integer({ required: true }) }, /^resource a: field id: is a system field/],
    ['a', 'a system field', { updated: timestamp({ nullable: true }) }, /^resource a: field updated: is a system field/],
    [
      'a',
      'required with a default',
      { x: integer({ required: true, default: 1 }) },
      /^resource a: field x: a required field cannot have a default/,
    ],
    ['a', 'default null, not nullable', { x: integer({ default: null }) }, /^resource a: field x: default null needs nullable/],
    ['a', 'optional, no default, not nullable', { x: integer() }, /^resource a: field x: an optional field needs a default/],
    ['a', 'maxLength on an integer', { x: integer({ required: true, maxLength: 3 } as never) }, /^resource a: field x: maxLength/],
    ['a', 'maxLength zero', { x: string({ required: true, maxLength: 0 }) }, /^resource a: field x: maxLength/],
    ['a', 'a string parent link', { x: string({ required: true, parent: 'b' }) }, /^resource a: field x: a parent link must be an integer/],
    ['a', 'a default of the wrong kind', { x: integer({ default: 'one' } as never) }, /^resource a: field x: default does not fit/],
    ['a', 'a default over maxLength', { x: string({ default: 'abcd', maxLength: 3 }) }, /^resource a: field x: default does not fit/],
    ['a', 'an impossible date default', { x: date({ default: '2023-02-29' }) }, /^resource a: field x: default does not fit/],
    ['a', 'a boolean default that is not', { x: boolean({ default: 1 } as never) }, /^resource a: field x: default does not fit/],
    ['a', 'an unknown kind', { x: { kind: 'money' } as never }, /^resource a: field x: kind must be one of/],
  ];
  const BAD_INDEXES: [string, readonly (readonly string[])[], RegExp][] = [
    ['one field', [['name']], /^resource a: indexes: \["name"\] must list two or more different fields/],
    ['a repeated field', [['name', 'name']], /must list two or more different fields/],
    ['a field that is not filterable', [['name', 'size']], /^resource a: indexes: size is not a filterable field/],
    ['an unknown field', [['name', 'nope']], /^resource a: indexes: nope is not a filterable field/],
  ];
  for (const [what, indexes, message] of BAD_INDEXES)
    it(`refuses a composite index on ${what}`, () => {
      const fields = { name: string({ required: true, filterable: true }), size: integer({ default: 1 }) };
      expect(() => defineResource({ name: 'a', fields, indexes })).toThrow(message);
    });

  describe('an option no builder knows', () => {
    it('is a type error (tsc) and stops the start with one line naming resource, field and option', () => {
      // @ts-expect-error maxLenght is a misspelling of maxLength
      const misspelt = string({ default: 'x', maxLenght: 5 });
      expect(() => defineResource({ name: 'a', fields: { place: misspelt } })).toThrow(
        /^resource a: field place: option maxLenght is not known$/,
      );
    });

    it('is a type error on every kind of field', () => {
      // @ts-expect-error `unique` is no option
      integer({ required: true, unique: true });
      // @ts-expect-error `min` is no option
      date({ nullable: true, min: '2024-01-01' });
      // The options a builder knows still type-check, and their literal types stay.
      const known = string({ default: 'open', maxLength: 9, filterable: true, readOnly: false, renamedFrom: 'state' });
      expectTypeOf(known.default).toEqualTypeOf<'open'>();
    });

    it('of a resource is a type error and stops the start too', () => {
      const fields = { x: integer({ required: true, filterable: true }) };
      // @ts-expect-error indexs is a misspelling of indexes
      expect(() => defineResource({ name: 'a', fields, indexs: [['x', 'created']] })).toThrow(/^resource a: option indexs is not known$/);
    });
  });

  const BAD_RENAMES: [string, Fields, RegExp][] = [
    [
      'a field that still exists',
      { place: string({ nullable: true, renamedFrom: 'site' }), site: string({ nullable: true }) },
      /^resource a: field place: renamedFrom names site, which is still a field$/,
    ],
    [
      'a system field',
      { made: date({ nullable: true, renamedFrom: 'created' }) },
      /^resource a: field made: renamedFrom must name an earlier field$/,
    ],
    [
      'a bad name',
      { x: integer({ nullable: true, renamedFrom: 'Not A Name' }) },
      /^resource a: field x: renamedFrom must name an earlier field$/,
    ],
    [
      'a name another field is renamed from',
      { x: integer({ nullable: true, renamedFrom: 'w' }), y: integer({ nullable: true, renamedFrom: 'w' }) },
      /^resource a: field y: renamedFrom names w, which another field is renamed from$/,
    ],
  ];
  for (const [what, fields, message] of BAD_RENAMES)
    it(`refuses renamedFrom naming ${what}`, () => expect(() => defineResource({ name: 'a', fields })).toThrow(message));

  it('takes a composite index of filterable fields, system ones included', () => {
    const fields = { name: string({ required: true, filterable: true }) };
    expect(defineResource({ name: 'a', fields, indexes: [['name', 'created']] }).indexes).toEqual([['name', 'created']]);
  });

  for (const [name, what, fields, message] of BAD) {
    it(`refuses ${what} with one line naming the resource and field`, () => {
      expect(() => defineResource({ name, fields })).toThrow(message);
      try {
        defineResource({ name, fields });
      } catch (e) {
        expect((e as Error).message).not.toContain('\n');
      }
    });
  }

  it('derives record and body types from the definition', () => {
    type WorkOrder = RecordOf<typeof workOrders>;
    expectTypeOf<WorkOrder['id']>().toEqualTypeOf<number>();
    expectTypeOf<WorkOrder['department_id']>().toEqualTypeOf<number>();
    expectTypeOf<WorkOrder['priority']>().toEqualTypeOf<number | null>();
    expectTypeOf<WorkOrder['deleted']>().toEqualTypeOf<boolean>();
    type NewWorkOrder = CreateBodyOf<typeof workOrders>;
    expectTypeOf<{ department_id: 1; work_order_type_id: 2; work_order_type_group_id: 3 }>().toExtend<NewWorkOrder>();
    expectTypeOf<{ department_id: 1 }>().not.toExtend<NewWorkOrder>();
    expectTypeOf<NewWorkOrder>().not.toHaveProperty('id');
    expectTypeOf<{ priority: null }>().toExtend<PatchBodyOf<typeof workOrders>>();
  });
});

describe('isDate and isTimestamp', () => {
  const DATES: [string, boolean][] = [
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2024-13-01', false],
    ['2024-1-01', false],
    ['0001-01-01', true],
    ['0000-01-01', false],
    ['9999-12-31', true],
    ['2024-01-01T00:00:00Z', false],
    ['', false],
    ['2024-04-31', false],
  ];
  for (const [s, ok] of DATES) it(`isDate(${JSON.stringify(s)}) is ${ok}`, () => expect(isDate(s)).toBe(ok));

  const STAMPS: [string, boolean][] = [
    ['2024-01-31T08:00:00Z', true],
    ['2024-01-31T08:00:00.123456789Z', true],
    ['2024-01-31T08:00:00+05:30', true],
    ['2024-01-31t08:00:00z', true],
    ['2024-01-31T08:00:00', false],
    ['2024-01-31 08:00:00Z', false],
    ['2023-02-29T00:00:00Z', false],
    ['2024-01-31T25:00:00Z', false],
    ['0000-06-01T00:00:00Z', false],
    ['0001-01-01T00:30:00+01:00', false],
    ['0001-01-01T00:00:00Z', true],
    ['9999-12-31T23:59:59.999Z', true],
    ['9999-12-31T23:30:00-01:00', false],
    ['9999-12-31T22:30:00-01:00', true],
  ];
  for (const [s, ok] of STAMPS) it(`isTimestamp(${JSON.stringify(s)}) is ${ok}`, () => expect(isTimestamp(s)).toBe(ok));
});
