import { describe, expect, it } from 'vitest';
import { describeEachDatabase, M } from '../support/harness.ts';
import { expectProblem, makeWorkOrder } from '../support/fixtures.ts';
import { qs } from '../support/filter-data.ts';

const FILTERABLE = 'id, created, department_id, work_order_type_id, work_order_type_group_id, priority, status, service_request_id';

/** [title, query as sent, [parameter, message] for each expected error, in order]. */
const CASES: [string, string, [string, RegExp][]][] = [
  [
    'unknown property, listing the filterable ones',
    'colour=red',
    [['colour', new RegExp(`unknown property colour; filterable properties: ${FILTERABLE}$`)]],
  ],
  [
    'a field that is not filterable',
    'description:like=x',
    [['description:like', /description is not filterable; filterable properties: id, /]],
  ],
  ['a system field that is not filterable', 'deleted=true', [['deleted', /deleted is not filterable/]]],
  ['a prototype name', 'constructor=1', [['constructor', /unknown property constructor/]]],
  [
    'unknown operator, listing the operators',
    'status:contains=x',
    [['status:contains', /unknown operator contains; operators for status: eq, ne, gt, gte, lt, lte, like, ilike, null$/]],
  ],
  ['operators are lower-case', 'status:LIKE=x', [['status:LIKE', /unknown operator LIKE/]]],
  ['a second colon on the left', 'status:eq:x=1', [['status:eq:x', /one colon/]]],
  ['a second colon, percent-encoded', 'status%3Aeq%3Ax=1', [['status:eq:x', /one colon/]]],
  [
    'unknown $ parameter',
    '$filter=status',
    [['$filter', /unknown parameter; reserved parameters: \$deleted, \$limit, \$page, \$cursor, \$orderBy/]],
  ],
  ['a $ parameter with an operator', '$deleted:eq=true', [['$deleted:eq', /unknown parameter/]]],
  ['empty right-hand side (basic)', 'department_id=', [['department_id', /empty value; use department_id:null= /]]],
  ['empty right-hand side (no =)', 'department_id', [['department_id', /empty value/]]],
  ['empty right-hand side (:eq)', 'status:eq=', [['status:eq', /empty value; use status:null=/]]],
  ['empty right-hand side (:ne)', 'priority:ne=', [['priority:ne', /empty value/]]],
  ['empty right-hand side (:gt)', 'created:gt=', [['created:gt', /empty value/]]],
  ['empty right-hand side (:like)', 'status:like=', [['status:like', /empty value/]]],
  [
    'like on an integer',
    'priority:like=1',
    [['priority:like', /like does not apply to integer fields; operators for priority: eq, ne, gt, gte, lt, lte, null$/]],
  ],
  ['ilike on a date', 'created:ilike=2024%25', [['created:ilike', /ilike does not apply to date fields/]]],
  [
    'a trailing backslash',
    qs(['status:like', 'x\\']),
    [['status:like', /may not end with an unescaped \\ \(write \\\\ for a backslash\)/]],
  ],
  ['a trailing backslash after an escaped one', qs(['status:ilike', 'x\\\\\\']), [['status:ilike', /unescaped/]]],
  ['a NUL in a value', 'status=a%00b', [['status', /NUL/]]],
  [
    'repeated gt',
    'priority:gt=1&priority:gt=2',
    [['priority:gt', /priority:gt may be given once; write two bounds with two different operators/]],
  ],
  ['repeated gte', 'priority:gte=1&priority:gte=1', [['priority:gte', /once/]]],
  ['repeated lt', 'created:lt=2024-01-01&created:lt=2024-02-01', [['created:lt', /once/]]],
  ['repeated lte', 'id:lte=5&id:lte=6', [['id:lte', /once/]]],
  ['repeated null', 'priority:null=&priority:null=', [['priority:null', /priority:null may be given once/]]],
  ['repeated null with different values', 'priority:null=true&priority:null=false', [['priority:null', /once/]]],
  ['null with another value', 'priority:null=yes', [['priority:null', /empty value or true \(empty\) or false \(not empty\)/]]],
  ['not an integer', 'department_id=seven', [['department_id', /department_id must be an integer/]]],
  ['not a real date', 'created=2023-02-30', [['created', /created must be a real date in the form YYYY-MM-DD/]]],
  ['not a date at all', 'created:gte=last+week', [['created:gte', /real date/]]],
  [
    '$orderBy: unknown field, listing the fields',
    '$orderBy=colour',
    [
      [
        '$orderBy',
        /\$orderBy takes one field as field, field:asc, field:desc, "field asc" or "field desc"; fields: id, created, updated, deleted, department_id, .*description, service_request_id$/,
      ],
    ],
  ],
  ['$orderBy: two fields', '$orderBy=priority,status', [['$orderBy', /one field/]]],
  ['$orderBy: two fields with a space', '$orderBy=priority+status', [['$orderBy', /one field/]]],
  ['$orderBy: twice', '$orderBy=priority&$orderBy=status', [['$orderBy', /may be given once/]]],
  ['$orderBy: empty', '$orderBy=', [['$orderBy', /one field/]]],
  ['$orderBy: upper-case direction', '$orderBy=priority:DESC', [['$orderBy', /field:desc/]]],
  ['$orderBy: unknown direction', '$orderBy=priority+down', [['$orderBy', /field desc/]]],
  ['$orderBy: a prototype name', '$orderBy=__proto__', [['$orderBy', /fields: /]]],
  ['$deleted: another value', '$deleted=yes', [['$deleted', /\$deleted must be true or false/]]],
  ['$deleted: empty', '$deleted=', [['$deleted', /true or false/]]],
  ['$deleted: upper case', '$deleted=TRUE', [['$deleted', /true or false/]]],
  [
    'every problem at once, filters then $ parameters',
    'colour=red&priority:gt=x&status:eq:x=1&$deleted=maybe&$orderBy=nothing&$x=1',
    [
      ['status:eq:x', /one colon/],
      ['colour', /unknown property/],
      ['priority:gt', /integer/],
      ['$deleted', /true or false/],
      ['$orderBy', /fields: /],
      ['$x', /unknown parameter/],
    ],
  ],
];

describeEachDatabase('filters: every bad query is a 400 problem naming the parameter and what is valid', (h) => {
  describe('on a collection', () => {
    it.each(CASES)('%s: %s', async (_t, q, expected) => {
      const r = await h().get(`${M}/work_orders?${q}`);
      expectProblem(r, 400);
      expect(
        r.body.errors.map((e: any) => e.parameter),
        r.text,
      ).toEqual(expected.map(([p]) => p));
      expected.forEach(([, message], i) => expect(r.body.errors[i].message).toMatch(message));
    });
  });

  it('on a child list too, naming the child resource’s filterable fields', async () => {
    const wo = await makeWorkOrder(h());
    const r = await h().get(`${M}/work_orders/${wo.id}/notes?priority=1&note:like=x\\&note:gt=a&note:gt=b`);
    expectProblem(r, 400, ['priority', 'note:like', 'note:gt']);
    expect(r.body.errors[0].message).toMatch(/unknown property priority; filterable properties: id, created, work_order_id, note$/);
  });

  it('a bad query on a missing parent is a 404 (the parent is checked first)', async () => {
    expectProblem(await h().get(`${M}/work_orders/987654/notes?colour=red`), 404);
  });
});
