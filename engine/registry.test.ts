import { describe, expect, it } from 'vitest';
import notes from '../resources/notes.ts';
import serviceRequests from '../resources/service-requests.ts';
import workOrders from '../resources/work-orders.ts';
import { defineResource, integer, string, type ResourceDefinition } from './define.ts';
import { createRegistry } from './registry.ts';

const REAL = [workOrders, notes, serviceRequests];

describe('createRegistry', () => {
  const registry = createRegistry(REAL);

  it('places system fields first, then the definition fields in order', () => {
    expect(registry.get('notes')!.fieldNames).toEqual(['id', 'created', 'updated', 'deleted', 'work_order_id', 'note']);
  });

  it('derives writable and filterable fields', () => {
    const wo = registry.get('work_orders')!;
    expect(wo.writable).toEqual([
      'department_id',
      'work_order_type_id',
      'work_order_type_group_id',
      'priority',
      'status',
      'description',
      'service_request_id',
    ]);
    expect([...wo.filterable].sort()).toEqual(
      [
        'id',
        'created',
        'department_id',
        'work_order_type_id',
        'work_order_type_group_id',
        'priority',
        'status',
        'service_request_id',
      ].sort(),
    );
    expect([...registry.get('notes')!.filterable].sort()).toEqual(['created', 'id', 'note', 'work_order_id']);
    expect([...registry.get('service_requests')!.filterable].sort()).toEqual(['created', 'department_id', 'id', 'status']);
  });

  it('derives children and parents from parent links', () => {
    expect([...registry.get('work_orders')!.children]).toEqual([['notes', 'work_order_id']]);
    expect([...registry.get('service_requests')!.children]).toEqual([['work_orders', 'service_request_id']]);
    expect([...registry.get('notes')!.children]).toEqual([]);
    expect([...registry.get('notes')!.parents]).toEqual([['work_orders', 'work_order_id']]);
  });

  it('is the same whatever order the definitions come in', () => {
    const reversed = createRegistry([...REAL].reverse());
    expect([...reversed.get('work_orders')!.children]).toEqual([['notes', 'work_order_id']]);
  });

  const BAD: [string, ResourceDefinition[], RegExp][] = [
    [
      'a parent that is not a resource',
      [defineResource({ name: 'a', fields: { b_id: integer({ required: true, parent: 'b' }) } })],
      /^resource a: field b_id: parent b is not a resource$/,
    ],
    ['a resource defined twice', [workOrders, workOrders], /^resource work_orders: defined twice$/],
    [
      'two links to the same parent',
      [
        serviceRequests,
        defineResource({
          name: 'c',
          fields: {
            x: integer({ nullable: true, parent: 'service_requests' }),
            y: integer({ nullable: true, parent: 'service_requests' }),
          },
        }),
      ],
      /^resource c: field y: a second parent link to service_requests$/,
    ],
    ['an unchecked bad definition', [{ name: 'x', fields: { n: string() } } as ResourceDefinition], /^resource x: field n: /],
  ];
  for (const [what, defs, message] of BAD) {
    it(`stops on ${what} with one line naming it`, () => expect(() => createRegistry(defs)).toThrow(message));
  }
});
