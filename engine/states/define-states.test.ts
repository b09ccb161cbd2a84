import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineResource, integer, string, type Fields, type RecordOf } from '../define.ts';

const MACHINE = { open: ['assigned', 'cancelled'], assigned: ['closed', 'cancelled'], closed: [], cancelled: [] } as const;

describe('states and enter (SPEC 11) in a definition', () => {
  it('type the field as the union of its states', () => {
    const d = defineResource({
      name: 'jobs',
      fields: {
        status: string({ default: 'open', filterable: true, states: MACHINE, enter: { closed: { roles: ['admin'], requires: ['note'] } } }),
        note: string({ nullable: true }),
      },
    });
    expectTypeOf<RecordOf<typeof d>['status']>().toEqualTypeOf<'open' | 'assigned' | 'closed' | 'cancelled'>();
    expectTypeOf<RecordOf<typeof d>['note']>().toEqualTypeOf<string | null>();
  });

  it('naming an undeclared state is a type error (tsc) and stops the start with one line', () => {
    // @ts-expect-error `closd` is not a state
    const moves = string({ default: 'open', states: { open: ['closd'], closed: [] } });
    expect(() => defineResource({ name: 'a', fields: { status: moves } })).toThrow(
      /^resource a: field status: states: open may move to closd, which is not a state$/,
    );
    // @ts-expect-error the default `new` is not a state
    const initial = string({ default: 'new', states: { open: [], closed: [] } });
    expect(() => defineResource({ name: 'a', fields: { status: initial } })).toThrow(
      /^resource a: field status: default must be a state \(the initial one\)$/,
    );
    // @ts-expect-error `archived` is not a state
    const entered = string({ default: 'open', states: { open: [] }, enter: { archived: { roles: ['admin'] } } });
    expect(() => defineResource({ name: 'a', fields: { status: entered } })).toThrow(
      /^resource a: field status: enter: archived is not a state$/,
    );
  });

  const BAD: [string, Fields, RegExp][] = [
    [
      'requires naming an unknown field',
      { status: string({ default: 'open', states: { open: [] }, enter: { open: { requires: ['nope'] } } }) },
      /^resource a: field status: enter\.open\.requires names nope, which is not a field$/,
    ],
    [
      'roles that are not strings',
      { status: string({ default: 'open', states: { open: [] }, enter: { open: { roles: [1] } } } as never) },
      /^resource a: field status: enter\.open\.roles must be a list of role names$/,
    ],
    [
      'states on an integer field',
      { n: integer({ default: 1, states: { 1: [] } } as never) },
      /^resource a: field n: states are for string fields only$/,
    ],
    [
      'states without a default',
      { status: string({ required: true, states: { open: [] } }) },
      /^resource a: field status: (a required field|default must be a state)/,
    ],
    [
      'a nullable field with states',
      { status: string({ default: 'open', nullable: true, states: { open: [] } }) },
      /^resource a: field status: a field with states cannot be nullable$/,
    ],
    [
      'a transition list that is not a list',
      { status: string({ default: 'open', states: { open: 'closed' } } as never) },
      /^resource a: field status: states: open must list the states/,
    ],
    [
      'enter without states',
      { status: string({ default: 'open', enter: { open: {} } }) },
      /^resource a: field status: enter needs states$/,
    ],
    [
      'an unknown enter option',
      { status: string({ default: 'open', states: { open: [] }, enter: { open: { role: ['x'] } } } as never) },
      /^resource a: field status: enter\.open: option role is not known$/,
    ],
  ];
  for (const [what, fields, message] of BAD)
    it(`refuses ${what} with one line naming resource and field`, () => {
      expect(() => defineResource({ name: 'a', fields })).toThrow(message);
      try {
        defineResource({ name: 'a', fields });
      } catch (e) {
        expect((e as Error).message).not.toContain('\n');
      }
    });
});
