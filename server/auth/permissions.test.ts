import { describe, expect, it } from 'vitest';
import { BUILT_IN_ROLES, parseGrant, permissionsOf, type Grant } from './permissions.ts';

const COLLECTIONS = new Set(['work_orders', 'notes']);

describe('parseGrant', () => {
  it.each([
    ['notes:create', { collection: 'notes', action: 'create' }],
    ['*:read', { collection: '*', action: 'read' }],
    ['all:read', { collection: '*', action: 'read' }],
    ['notes:*', { collection: 'notes', action: '*' }],
    ['notes:all', { collection: 'notes', action: '*' }],
    ['notes', 'form'],
    ['notes:read:x', 'form'],
    [':read', 'form'],
    ['notes:fly', 'action'],
    ['notes:READ', 'action'],
    ['nothing:read', 'collection'],
  ])('%s -> %j', (text, expected) => expect(parseGrant(text, COLLECTIONS)).toEqual(expected));

  it('all names a collection when one is called all', () => {
    expect(parseGrant('all:read', new Set(['all']))).toEqual({ collection: 'all', action: 'read' });
  });
});

describe('permissionsOf', () => {
  const can = (grants: readonly Grant[], collection: string, action: 'read' | 'create' | 'update' | 'delete') =>
    permissionsOf(grants)(collection, action);
  it.each([
    [BUILT_IN_ROLES.admin!, 'notes', 'delete', true],
    [BUILT_IN_ROLES.reader!, 'notes', 'read', true],
    [BUILT_IN_ROLES.reader!, 'notes', 'create', false],
    [[{ collection: 'notes', action: 'create' }], 'notes', 'create', true],
    [[{ collection: 'notes', action: 'create' }], 'notes', 'read', false],
    [[{ collection: 'notes', action: 'create' }], 'work_orders', 'create', false],
    [[{ collection: 'notes', action: '*' }], 'notes', 'update', true],
    [[{ collection: 'notes', action: '*' }], 'work_orders', 'update', false],
    [[{ collection: '*', action: 'delete' }], 'work_orders', 'delete', true],
    [[], 'notes', 'read', false],
  ] as const)('%j on %s:%s is %s', (grants, collection, action, expected) => expect(can(grants, collection, action)).toBe(expected));
});
