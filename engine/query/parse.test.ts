import { describe, expect, it } from 'vitest';
import { parseQuery } from './parse.ts';

/** Query strings as a client sends them, decoded as the handler does (URLSearchParams: once, `+` a space). */
const parse = (qs: string) => parseQuery(new URLSearchParams(qs));
const f = (param: string, property: string, operator: string | undefined, value: string) => ({ param, property, operator, value });

describe('parseQuery', () => {
  // The interface document's filtering examples come first.
  const cases: [string, string, ReturnType<typeof parse>][] = [
    [
      'basic: property=value',
      'department_id=7',
      { filters: [f('department_id', 'department_id', undefined, '7')], reserved: [], errors: [] },
    ],
    [
      'repeating a property keeps every value, in order',
      'department_id=1&department_id=2',
      {
        filters: [f('department_id', 'department_id', undefined, '1'), f('department_id', 'department_id', undefined, '2')],
        reserved: [],
        errors: [],
      },
    ],
    [
      'null with an empty right-hand side',
      'priority:null=',
      { filters: [f('priority:null', 'priority', 'null', '')], reserved: [], errors: [] },
    ],
    [
      'colons on the right-hand side are the value',
      'note:eq=a:b:c',
      { filters: [f('note:eq', 'note', 'eq', 'a:b:c')], reserved: [], errors: [] },
    ],
    [
      'a basic filter with a colon in its value',
      'note=time: 10:30',
      { filters: [f('note', 'note', undefined, 'time: 10:30')], reserved: [], errors: [] },
    ],
    [
      'two bounds with two operators',
      'created:gte=2024-01-01&created:lte=2024-01-31',
      {
        filters: [f('created:gte', 'created', 'gte', '2024-01-01'), f('created:lte', 'created', 'lte', '2024-01-31')],
        reserved: [],
        errors: [],
      },
    ],
    [
      'basic and advanced mixed, decided per parameter',
      'department_id=7&priority:gt=2',
      { filters: [f('department_id', 'department_id', undefined, '7'), f('priority:gt', 'priority', 'gt', '2')], reserved: [], errors: [] },
    ],
    [
      'reserved parameters are never filters',
      '$deleted=true&$orderBy=created:desc&$limit=5',
      {
        filters: [],
        reserved: [
          { param: '$deleted', value: 'true' },
          { param: '$orderBy', value: 'created:desc' },
          { param: '$limit', value: '5' },
        ],
        errors: [],
      },
    ],
    [
      'a reserved name with a colon is still reserved',
      '$orderBy:x=1',
      { filters: [], reserved: [{ param: '$orderBy:x', value: '1' }], errors: [] },
    ],
    ['%24 is a $, decoded once', '%24limit=5', { filters: [], reserved: [{ param: '$limit', value: '5' }], errors: [] }],
    ['%3A is a colon on the left', 'priority%3Agte=2', { filters: [f('priority:gte', 'priority', 'gte', '2')], reserved: [], errors: [] }],
    ['+ is a space', '$orderBy=created+desc', { filters: [], reserved: [{ param: '$orderBy', value: 'created desc' }], errors: [] }],
    ['%2B is a literal plus', 'note=a%2Bb+c', { filters: [f('note', 'note', undefined, 'a+b c')], reserved: [], errors: [] }],
    ['decoded once only: %2525 is %25', 'note=%2525', { filters: [f('note', 'note', undefined, '%25')], reserved: [], errors: [] }],
    [
      'an empty value is kept (resolve refuses it)',
      'department_id=',
      { filters: [f('department_id', 'department_id', undefined, '')], reserved: [], errors: [] },
    ],
    [
      'a name without = has an empty value',
      'department_id',
      { filters: [f('department_id', 'department_id', undefined, '')], reserved: [], errors: [] },
    ],
    ['an empty operator is kept (resolve names it)', 'status:=x', { filters: [f('status:', 'status', '', 'x')], reserved: [], errors: [] }],
    ['an empty property is kept (resolve names it)', ':eq=x', { filters: [f(':eq', '', 'eq', 'x')], reserved: [], errors: [] }],
    ['operators are not case-folded', 'status:EQ=x', { filters: [f('status:EQ', 'status', 'EQ', 'x')], reserved: [], errors: [] }],
    [
      'a second colon on the left is an error naming the parameter',
      'status:eq:x=1&priority=2',
      {
        filters: [f('priority', 'priority', undefined, '2')],
        reserved: [],
        errors: [{ parameter: 'status:eq:x', message: expect.stringContaining('one colon') }],
      },
    ],
    [
      'a trailing colon after the operator is a second colon',
      'status:eq:=1',
      { filters: [], reserved: [], errors: [{ parameter: 'status:eq:', message: expect.stringContaining('one colon') }] },
    ],
    ['nothing at all', '', { filters: [], reserved: [], errors: [] }],
  ];
  it.each(cases)('%s: %s', (_title, qs, expected) => {
    expect(parse(qs)).toEqual(expected);
  });
});
