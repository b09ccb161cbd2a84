import { describe, expect, it } from 'vitest';
import { defineResource, boolean, integer, string, timestamp } from '../define.ts';
import { EngineError, valueOf } from '../errors.ts';
import { createRegistry } from '../registry.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { MAX_FILTER_VALUES, resolveQuery } from './resolve.ts';
import { parseQuery } from './parse.ts';

const things = defineResource({
  name: 'things',
  fields: {
    active: boolean({ filterable: true, nullable: true }),
    seen_at: timestamp({ filterable: true, nullable: true }),
    label: string({ filterable: true, nullable: true }),
    size: integer({ nullable: true }),
  },
});
const registry = createRegistry([workOrders, serviceRequests, notes, things]);
const resource = (name: string) => registry.get(name)!;

const resolved = (qs: string, name = 'work_orders') => resolveQuery(parseQuery(new URLSearchParams(qs)), resource(name));
const resolve = (qs: string, name = 'work_orders') => valueOf(resolved(qs, name));
const problemsOf = (qs: string, name = 'work_orders') => {
  const r = resolved(qs, name);
  if ('value' in r) throw new Error(`${qs} was accepted`);
  expect(r.error).toBeInstanceOf(EngineError);
  expect(r.error.status).toBe(400);
  return r.error.errors as { parameter: string; message: string }[];
};
const filter = (field: string, op: string, values: unknown[], params: string[]) => expect.objectContaining({ field, op, values, params });

describe('resolveQuery: accepted queries give typed filters', () => {
  const cases: [string, string, unknown[], string?][] = [
    // The interface document's examples.
    ['basic filter', 'department_id=7', [filter('department_id', 'eq', [7], ['department_id'])]],
    ['repeated property: any of', 'department_id=1&department_id=2', [filter('department_id', 'eq', [1, 2], ['department_id'])]],
    ['null written with an empty right-hand side', 'priority:null=', [filter('priority', 'null', [true], ['priority:null'])]],
    ['colons in the value', 'note:eq=a:b', [filter('note', 'eq', ['a:b'], ['note:eq'])], 'notes'],
    [
      'two bounds',
      'created:gte=2024-01-01&created:lte=2024-01-31',
      [filter('created', 'gte', ['2024-01-01'], ['created:gte']), filter('created', 'lte', ['2024-01-31'], ['created:lte'])],
    ],
    // SPEC section 4.
    [
      'plain and :eq merge into one IN',
      'department_id=1&department_id:eq=2&department_id=1',
      [filter('department_id', 'eq', [1, 2], ['department_id', 'department_id:eq'])],
    ],
    ['repeated ne: none of', 'priority:ne=1&priority:ne=2', [filter('priority', 'ne', [1, 2], ['priority:ne'])]],
    ['repeated like: any of', 'status:like=a%&status:like=%b', [filter('status', 'like', ['a%', '%b'], ['status:like'])]],
    ['repeated ilike: any of', 'status:ilike=A%&status:ilike=b', [filter('status', 'ilike', ['A%', 'b'], ['status:ilike'])]],
    ['null=true is empty', 'priority:null=true', [filter('priority', 'null', [true], ['priority:null'])]],
    ['null=false is not empty', 'priority:null=false', [filter('priority', 'null', [false], ['priority:null'])]],
    ['integers typed', 'priority:gt=-2', [filter('priority', 'gt', [-2], ['priority:gt'])]],
    ['strings as given', 'status=in progress', [filter('status', 'eq', ['in progress'], ['status'])]],
    ['a like pattern is kept as written', 'status:like=\\%2550\\_', [filter('status', 'like', ['\\%50\\_'], ['status:like'])]],
    [
      'every filter is a separate condition',
      'priority:ne=2&priority=3',
      [filter('priority', 'ne', [2], ['priority:ne']), filter('priority', 'eq', [3], ['priority'])],
    ],
    [
      'booleans typed',
      'active=true&active:ne=false',
      [filter('active', 'eq', [true], ['active']), filter('active', 'ne', [false], ['active:ne'])],
      'things',
    ],
    [
      'timestamps typed and normalized',
      'seen_at:gte=2024-01-31T10:00:00%2B02:00',
      [filter('seen_at', 'gte', ['2024-01-31T08:00:00.000Z'], ['seen_at:gte'])],
      'things',
    ],
    ['id is filterable', 'id:lt=10', [filter('id', 'lt', [10], ['id:lt'])]],
    ['no filters', '$orderBy=status', []],
  ];
  it.each(cases)('%s: %s', (_title, qs, filters, name) => {
    expect(resolve(qs, name).filters).toEqual(filters);
  });
});

describe('resolveQuery: refused queries name each offending parameter and say what is valid', () => {
  const cases: [string, string, { parameter: string; message: RegExp }[], string?][] = [
    [
      'unknown property lists the filterable ones',
      'colour=red',
      [{ parameter: 'colour', message: /unknown property colour; filterable properties: id, created, department_id, .*status/ }],
    ],
    [
      'a field that is not filterable',
      'description=x',
      [{ parameter: 'description', message: /description is not filterable; filterable properties: / }],
    ],
    ['a prototype name is not a field', 'constructor=x', [{ parameter: 'constructor', message: /unknown property constructor/ }]],
    [
      'unknown operator lists the operators',
      'priority:between=1',
      [{ parameter: 'priority:between', message: /unknown operator between; operators for priority: eq, ne, gt, gte, lt, lte, null$/ }],
    ],
    ['operators are lower-case', 'priority:EQ=1', [{ parameter: 'priority:EQ', message: /unknown operator EQ/ }]],
    ['empty operator', 'priority:=1', [{ parameter: 'priority:', message: /unknown operator/ }]],
    ['a second colon on the left', 'priority:eq:x=1', [{ parameter: 'priority:eq:x', message: /one colon/ }]],
    [
      'empty right-hand side points at null',
      'department_id=',
      [{ parameter: 'department_id', message: /empty value; use department_id:null=/ }],
    ],
    ['empty right-hand side with an operator', 'status:ne=', [{ parameter: 'status:ne', message: /empty value/ }]],
    ['empty like pattern', 'status:like=', [{ parameter: 'status:like', message: /empty value/ }]],
    [
      'like on an integer',
      'priority:like=1%',
      [{ parameter: 'priority:like', message: /like does not apply to integer fields; operators for priority: / }],
    ],
    ['ilike on a date', 'created:ilike=2024%', [{ parameter: 'created:ilike', message: /ilike does not apply to date fields/ }]],
    ['gt on a boolean', 'active:gt=false', [{ parameter: 'active:gt', message: /gt does not apply to boolean fields/ }], 'things'],
    ['a trailing backslash', 'status:like=50\\', [{ parameter: 'status:like', message: /unescaped \\/ }]],
    ['a NUL in a string', 'status=a%00', [{ parameter: 'status', message: /NUL/ }]],
    ['a NUL in a pattern', 'status:ilike=%00', [{ parameter: 'status:ilike', message: /NUL/ }]],
    ['not an integer', 'priority=high', [{ parameter: 'priority', message: /priority must be an integer$/ }]],
    [
      'an integer past 2^53',
      'priority=9007199254740993',
      [{ parameter: 'priority', message: /priority must be an integer from -9007199254740991 to 9007199254740991/ }],
    ],
    ['not a real date', 'created=2023-02-30', [{ parameter: 'created', message: /created must be a real date in the form YYYY-MM-DD/ }]],
    ['not a date', 'created:gt=yesterday', [{ parameter: 'created:gt', message: /real date/ }]],
    ['not a boolean', 'active=yes', [{ parameter: 'active', message: /true or false/ }], 'things'],
    [
      'null takes only empty, true or false',
      'priority:null=no',
      [{ parameter: 'priority:null', message: /empty value or true .* or false/ }],
    ],
    [
      'repeated gt',
      'priority:gt=1&priority:gt=2',
      [{ parameter: 'priority:gt', message: /may be given once; write two bounds with two different operators/ }],
    ],
    ['repeated gte', 'created:gte=2024-01-01&created:gte=2024-01-02', [{ parameter: 'created:gte', message: /once/ }]],
    ['repeated lt', 'id:lt=1&id:lt=1', [{ parameter: 'id:lt', message: /once/ }]],
    ['repeated lte', 'id:lte=1&id:lte=2', [{ parameter: 'id:lte', message: /once/ }]],
    ['repeated null', 'priority:null=&priority:null=true', [{ parameter: 'priority:null', message: /priority:null may be given once/ }]],
    [
      'unknown $ parameter lists the reserved ones',
      '$sort=id',
      [{ parameter: '$sort', message: /unknown parameter; reserved parameters: .*\$orderBy/ }],
    ],
    [
      'every problem at once',
      'colour=red&priority=x&created=2023-02-30&$nope=1&status:like=a\\',
      [
        { parameter: 'colour', message: /unknown property/ },
        { parameter: 'priority', message: /integer/ },
        { parameter: 'created', message: /real date/ },
        { parameter: 'status:like', message: /unescaped/ },
        { parameter: '$nope', message: /unknown parameter/ },
      ],
    ],
  ];
  it.each(cases)('%s: %s', (_title, qs, expected, name) => {
    const problems = problemsOf(qs, name);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(problems[i]!.parameter).toBe(e.parameter);
      expect(problems[i]!.message).toMatch(e.message);
    });
  });

  it(`at most ${MAX_FILTER_VALUES} distinct filter values (each is one SQL parameter)`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `id=${i}`).join('&');
    expect(resolve(many(MAX_FILTER_VALUES)).filters[0]!.values).toHaveLength(MAX_FILTER_VALUES);
    // repeats of one value are one value
    expect(resolve(`${many(MAX_FILTER_VALUES)}&id=0&id=1`).filters[0]!.values).toHaveLength(MAX_FILTER_VALUES);
    expect(problemsOf(many(MAX_FILTER_VALUES + 1))).toEqual([
      { parameter: 'id', message: expect.stringContaining(String(MAX_FILTER_VALUES)) },
    ]);
  });
});
