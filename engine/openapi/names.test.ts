import { describe, expect, it } from 'vitest';
import { oneOf, pluralName, singularName } from './names.ts';

describe('collection names in plain English', () => {
  it.each([
    ['work_orders', 'work orders', 'work order', 'a work order'],
    ['notes', 'notes', 'note', 'a note'],
    ['service_requests', 'service requests', 'service request', 'a service request'],
    ['assets', 'assets', 'asset', 'an asset'],
    ['categories', 'categories', 'category', 'a category'],
    ['boxes', 'boxes', 'box', 'a box'],
    ['addresses', 'addresses', 'address', 'an address'],
    ['inventory', 'inventory', 'inventory', 'an inventory'],
  ])('%s: %s, %s, %s', (name, plural, singular, one) => {
    expect(pluralName(name)).toBe(plural);
    expect(singularName(name)).toBe(singular);
    expect(oneOf(name)).toBe(one);
  });
});
