import { beforeAll, describe, expect, it } from 'vitest';
import { boolean, date, defineResource, integer, string, timestamp } from '../../engine/define.ts';
import { describeEachDatabase, M } from '../support/harness.ts';
import { expectProblem, make } from '../support/fixtures.ts';
import { qs } from '../support/filter-data.ts';

/** One filterable field of every kind, all nullable: values are typed by the field they filter. */
const gadgets = defineResource({
  name: 'gadgets',
  fields: {
    name: string({ required: true, filterable: true }),
    active: boolean({ nullable: true, filterable: true }),
    size: integer({ nullable: true, filterable: true }),
    label: string({ nullable: true, filterable: true }),
    due: date({ nullable: true, filterable: true }),
    seen_at: timestamp({ nullable: true, filterable: true }),
  },
});

const G = `${M}/gadgets`;

describeEachDatabase(
  'filters: values typed by the field',
  (h) => {
    beforeAll(async () => {
      for (const g of [
        { name: 'g1', active: true, size: 10, label: 'x', due: '2024-02-29', seen_at: '2024-01-31T08:00:00Z' },
        { name: 'g2', active: false, size: -5, label: '', due: '2023-12-31', seen_at: '2024-01-31T09:00:00.500Z' },
        { name: 'g3', active: null, size: null, label: null, due: null, seen_at: null },
        { name: 'g4', active: true, size: 9007199254740991, label: 'X', due: '0001-01-01', seen_at: '2024-01-31T07:59:59.999Z' },
      ])
        await make(h(), G, g);
    });
    const list = async (q: string) => {
      const r = await h().get(`${G}?${q}&$limit=50`);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('x-total')).toBe(String(r.body.length));
      return r.body.map((g: { name: string }) => g.name);
    };

    describe('accepted', () => {
      const cases: [string, string, string[]][] = [
        ['boolean true', 'active=true', ['g1', 'g4']],
        ['boolean false', 'active=false', ['g2']],
        ['boolean ne: empty included', 'active:ne=true', ['g2', 'g3']],
        ['boolean null', 'active:null=', ['g3']],
        ['integer with a sign', 'size=-5', ['g2']],
        ['integer with a plus and zeros', `size=${encodeURIComponent('+010')}`, ['g1']],
        ['the largest safe integer', 'size=9007199254740991', ['g4']],
        ['integer comparison is numeric, not textual', 'size:gt=9', ['g1', 'g4']],
        ['a real leap day', 'due=2024-02-29', ['g1']],
        ['year 1', 'due:lt=1000-01-01', ['g4']],
        ['date comparison', 'due:gte=2024-01-01', ['g1']],
        ['timestamps compare as instants', `seen_at:gt=${encodeURIComponent('2024-01-31T08:59:59.999+01:00')}`, ['g1', 'g2']],
        ['timestamp equality in another zone', `seen_at=${encodeURIComponent('2024-01-31T10:00:00+02:00')}`, ['g1']],
        ['an empty string is a value (ne matches it)', 'label:ne=x', ['g2', 'g3', 'g4']],
        ['like never matches empty values', qs(['label:like', '%']), ['g1', 'g2', 'g4']],
        ['ilike never matches empty values', qs(['label:ilike', 'X']), ['g1', 'g4']],
        ['like matches the empty string with %', qs(['label:like', '%'], ['label:ne', 'x'], ['label:ne', 'X']), ['g2']],
        ['gt never matches empty values', 'size:gt=-100', ['g1', 'g2', 'g4']],
        ['lte never matches empty values', 'due:lte=9999-12-31', ['g1', 'g2', 'g4']],
        ['eq never matches empty values', 'label=x&label=X', ['g1', 'g4']],
      ];
      it.each(cases)('%s: %s', async (_t, q, expected) => {
        expect(await list(q)).toEqual(expected);
      });
    });

    describe('refused with a 400 naming the parameter and the expected form', () => {
      const cases: [string, string, string, RegExp][] = [
        ['not a boolean', 'active=yes', 'active', /true or false/],
        ['a boolean is lower-case', 'active=True', 'active', /true or false/],
        ['a boolean is not a number', 'active=1', 'active', /true or false/],
        ['not an integer', 'size=ten', 'size', /integer/],
        ['a fraction', 'size=1.5', 'size', /integer/],
        ['an exponent', 'size=1e3', 'size', /integer/],
        ['beyond safe integers', 'size=9007199254740993', 'size', /integer/],
        ['2023-02-30 is no date', 'due=2023-02-30', 'due', /real date in the form YYYY-MM-DD/],
        ['2023-02-29 is no date', 'due:gte=2023-02-29', 'due:gte', /real date/],
        ['month 13', 'due=2024-13-01', 'due', /real date/],
        ['year 0', 'due=0000-06-01', 'due', /real date/],
        ['an unpadded date', 'due=2024-1-1', 'due', /YYYY-MM-DD/],
        ['a timestamp without a zone', 'seen_at=2024-01-31T08:00:00', 'seen_at', /RFC 3339/],
        ['like on a boolean', 'active:like=t%', 'active:like', /like does not apply to boolean fields; operators for active: eq, ne, null/],
        [
          'like on a date',
          'due:like=2024%',
          'due:like',
          /like does not apply to date fields; operators for due: eq, ne, gt, gte, lt, lte, null/,
        ],
        ['ilike on an integer', 'size:ilike=1', 'size:ilike', /ilike does not apply to integer fields/],
        ['gt on a boolean', 'active:gt=false', 'active:gt', /gt does not apply to boolean fields/],
        ['null with another value', 'label:null=maybe', 'label:null', /empty value or true/],
      ];
      it.each(cases)('%s: %s', async (_t, q, parameter, message) => {
        const r = await h().get(`${G}?${q}`);
        expectProblem(r, 400, [parameter]);
        expect(r.body.errors[0].message).toMatch(message);
      });
    });
  },
  { resources: [gadgets] },
);
