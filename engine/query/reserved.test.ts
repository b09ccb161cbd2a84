import { describe, expect, it } from 'vitest';
import { createRegistry } from '../registry.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { parseQuery } from './parse.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, resolveReserved, type Reserved } from './reserved.ts';

const workOrder = createRegistry([workOrders, serviceRequests, notes]).get('work_orders')!;

function reserved(qs: string): { value: Reserved; problems: { parameter: string; message: string }[] } {
  const problems: { parameter: string; message: string }[] = [];
  const value = resolveReserved(parseQuery(new URLSearchParams(qs)).reserved, workOrder, problems);
  return { value, problems };
}

describe('resolveReserved: accepted', () => {
  const cases: [string, Partial<Reserved>][] = [
    [
      '',
      {
        order: { field: 'id', direction: 'asc' },
        deleted: false,
        limit: DEFAULT_LIMIT,
        page: 1,
        cursor: undefined,
        given: { limit: false, order: false, deleted: false, fields: false, linked: false },
      },
    ],
    [
      '$orderBy=created',
      { order: { field: 'created', direction: 'asc' }, given: { limit: false, order: true, deleted: false, fields: false, linked: false } },
    ],
    ['$orderBy=created:asc', { order: { field: 'created', direction: 'asc' } }],
    ['$orderBy=created:desc', { order: { field: 'created', direction: 'desc' } }],
    ['$orderBy=created+desc', { order: { field: 'created', direction: 'desc' } }],
    ['$orderBy=created%20asc', { order: { field: 'created', direction: 'asc' } }],
    ['$orderBy=created%20%20desc', { order: { field: 'created', direction: 'desc' } }],
    ['$orderBy=+priority+desc+', { order: { field: 'priority', direction: 'desc' } }],
    // any field, filterable or not, system fields included
    ['$orderBy=description:desc', { order: { field: 'description', direction: 'desc' } }],
    ['$orderBy=updated', { order: { field: 'updated', direction: 'asc' } }],
    ['$orderBy=deleted:desc', { order: { field: 'deleted', direction: 'desc' } }],
    ['$orderBy=id:desc', { order: { field: 'id', direction: 'desc' } }],
    ['%24orderBy=status%3Adesc', { order: { field: 'status', direction: 'desc' } }],
    ['$deleted=true', { deleted: true, given: { limit: false, order: false, deleted: true, fields: false, linked: false } }],
    ['$fields=priority,department_id', { fields: ['department_id', 'priority'] }],
    ['$fields=id', { fields: ['id'] }],
    ['$linked=Notes', { linked: ['Notes'], given: { limit: false, order: false, deleted: false, fields: false, linked: true } }],
    ['$linked=Notes,Notes', { linked: ['Notes'] }],
    ['$linked=Notes,Files', { linked: ['Notes', 'Files'] }],
    ['$deleted=false', { deleted: false, given: { limit: false, order: false, deleted: true, fields: false, linked: false } }],
  ];
  it.each(cases)('%s', (qs, expected) => {
    const r = reserved(qs);
    expect(r.problems).toEqual([]);
    expect(r.value).toMatchObject(expected);
  });
});

describe('resolveReserved: refused, naming the parameter and what is valid', () => {
  const cases: [string, string, RegExp][] = [
    [
      '$orderBy=',
      '$orderBy',
      /one field as field, field:asc, field:desc, "field asc" or "field desc"; fields: id, created, updated, deleted, department_id/,
    ],
    ['$orderBy=colour', '$orderBy', /fields: /],
    ['$fields=colour,priority', '$fields', /\(not fields: colour\); fields: id, created/],
    ['$fields=', '$fields', /comma-separated list of fields/],
    ['$linked=notes', '$linked', /not a linked name here: notes; \$linked takes a comma-separated list of: Notes, Files$/],
    ['$linked=Notes,Attributes', '$linked', /not a linked name here: Attributes/],
    ['$orderBy=constructor', '$orderBy', /fields: /],
    ['$orderBy=__proto__', '$orderBy', /fields: /],
    ['$orderBy=toString:desc', '$orderBy', /fields: /],
    ['$orderBy=status,id', '$orderBy', /one field/],
    ['$orderBy=status+id', '$orderBy', /one field/],
    ['$orderBy=status:up', '$orderBy', /field:desc/],
    ['$orderBy=status:DESC', '$orderBy', /field:desc/],
    ['$orderBy=STATUS', '$orderBy', /fields: /],
    ['$orderBy=status:asc:desc', '$orderBy', /one field/],
    ['$orderBy=:asc', '$orderBy', /one field/],
    ['$deleted=yes', '$deleted', /\$deleted must be true or false/],
    ['$deleted=', '$deleted', /true or false/],
    ['$deleted=TRUE', '$deleted', /true or false/],
    ['$deleted=1', '$deleted', /true or false/],
    ['$where=1', '$where', /unknown parameter; reserved parameters: \$deleted, \$limit, \$page, \$cursor, \$orderBy, \$fields, \$linked/],
    ['$=1', '$', /unknown parameter/],
    ['$constructor=1', '$constructor', /unknown parameter/],
    ['$orderBy=id&$orderBy=status', '$orderBy', /may be given once/],
  ];
  it.each(cases)('%s', (qs, parameter, message) => {
    const r = reserved(qs);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.parameter).toBe(parameter);
    expect(r.problems[0]!.message).toMatch(message);
  });
  it('reports every bad $ parameter at once', () => {
    expect(reserved('$orderBy=x&$deleted=maybe&$foo=1').problems.map((p) => p.parameter)).toEqual(['$orderBy', '$deleted', '$foo']);
  });
  it(`$limit over ${MAX_LIMIT} is served as ${MAX_LIMIT}`, () => {
    expect(reserved('$limit=80').value.limit).toBe(MAX_LIMIT);
  });
});
