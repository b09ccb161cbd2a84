import { describe, expect, it } from 'vitest';
import { parseQuery } from './parse.ts';

/** Query strings as a client sends them, decoded as the handler does (URLSearchParams: once, `+` a space). */
const parse = (qs: string) => parseQuery(new URLSearchParams(qs));
const f = (param: string, property: string, operator: string | undefined, value: string) => ({ param, property, operator, value });

describe('parseQuery', () => {
  // The interface document's filtering examples come first.
  const cases: [string, string, ReturnType<typeof parse>][] = [
    ['basic: property=value', 'department_id=7', { filters: [f('department_id', 'department_id', undefined, '7')], reserved: [] }],
    [
      'repeating a property keeps every value, in order',
      'department_id=1&department_id=2',
      {
        filters: [f('department_id', 'department_id', undefined, '1'), f('department_id', 'department_id', undefined, '2')],
        reserved: [],
      },
    ],
    ['null with an empty right-hand side', 'priority:null=', { filters: [f('priority:null', 'priority', 'null', '')], reserved: [] }],
    ['colons on the right-hand side are the value', 'note:eq=a:b:c', { filters: [f('note:eq', 'note', 'eq', 'a:b:c')], reserved: [] }],
    [
      'a basic filter with a colon in its value',
      'note=time: 10:30',
      { filters: [f('note', 'note', undefined, 'time: 10:30')], reserved: [] },
    ],
    [
      'two bounds with two operators',
      'created:gte=2024-01-01&created:lte=2024-01-31',
      {
        filters: [f('created:gte', 'created', 'gte', '2024-01-01'), f('created:lte', 'created', 'lte', '2024-01-31')],
        reserved: [],
      },
    ],
    [
      'basic and advanced mixed, decided per parameter',
      'department_id=7&priority:gt=2',
      { filters: [f('department_id', 'department_id', undefined, '7'), f('priority:gt', 'priority', 'gt', '2')], reserved: [] },
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
      },
    ],
    ['a reserved name with a colon is still reserved', '$orderBy:x=1', { filters: [], reserved: [{ param: '$orderBy:x', value: '1' }] }],
    ['%24 is a $, decoded once', '%24limit=5', { filters: [], reserved: [{ param: '$limit', value: '5' }] }],
    ['%3A is a colon on the left', 'priority%3Agte=2', { filters: [f('priority:gte', 'priority', 'gte', '2')], reserved: [] }],
    ['+ is a space', '$orderBy=created+desc', { filters: [], reserved: [{ param: '$orderBy', value: 'created desc' }] }],
    ['%2B is a literal plus', 'note=a%2Bb+c', { filters: [f('note', 'note', undefined, 'a+b c')], reserved: [] }],
    ['decoded once only: %2525 is %25', 'note=%2525', { filters: [f('note', 'note', undefined, '%25')], reserved: [] }],
    [
      'an empty value is kept (resolve refuses it)',
      'department_id=',
      { filters: [f('department_id', 'department_id', undefined, '')], reserved: [] },
    ],
    [
      'a name without = has an empty value',
      'department_id',
      { filters: [f('department_id', 'department_id', undefined, '')], reserved: [] },
    ],
    ['an empty operator is kept (resolve names it)', 'status:=x', { filters: [f('status:', 'status', '', 'x')], reserved: [] }],
    ['an empty property is kept (resolve names it)', ':eq=x', { filters: [f(':eq', '', 'eq', 'x')], reserved: [] }],
    ['operators are not case-folded', 'status:EQ=x', { filters: [f('status:EQ', 'status', 'EQ', 'x')], reserved: [] }],
    [
      'a second colon on the left is refused in its place, naming the parameter',
      'status:eq:x=1&priority=2',
      {
        filters: [{ param: 'status:eq:x', malformed: expect.stringContaining('one colon') }, f('priority', 'priority', undefined, '2')],
        reserved: [],
      },
    ],
    [
      'a trailing colon after the operator is a second colon',
      'status:eq:=1',
      { filters: [{ param: 'status:eq:', malformed: expect.stringContaining('one colon') }], reserved: [] },
    ],
    ['nothing at all', '', { filters: [], reserved: [] }],
  ];
  it.each(cases)('%s: %s', (_title, qs, expected) => {
    expect(parse(qs)).toEqual(expected);
  });
});
