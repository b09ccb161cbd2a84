import { describe, expect, it } from 'vitest';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { defineResource, integer, string } from '../define.ts';
import { createRegistry } from '../registry.ts';
import { allowHeader, matchPath, routeFor, ROUTES } from './route-table.ts';

const assets = defineResource({ name: 'assets', group: '', fields: { tag: string({ required: true }) } });
const attributes = defineResource({
  name: 'attributes',
  group: '',
  linkedName: 'Attributes',
  fields: { asset_id: integer({ required: true, parent: 'assets' }) },
});
const profiles = defineResource({ name: 'profiles', group: 'am', fields: { title: string({ required: true }) } });
const registry = createRegistry([workOrders, notes, serviceRequests, assets, attributes, profiles]);
/** Paths here are relative to the maintenance group, but for those starting with `/` (relative to the base). */
const seg = (path: string) => (path.startsWith('/') ? path.slice(1).split('/') : ['maintenance', ...(path === '' ? [] : path.split('/'))]);

describe('matchPath', () => {
  const FOUND: [string, string, string, number | undefined, [string, number] | undefined][] = [
    ['work_orders', 'collection', 'work_orders', undefined, undefined],
    ['work_orders/12', 'record', 'work_orders', 12, undefined],
    ['notes/3', 'record', 'notes', 3, undefined],
    ['work_orders/12/notes', 'child', 'notes', undefined, ['work_orders', 12]],
    ['service_requests/4/work_orders', 'child', 'work_orders', undefined, ['service_requests', 4]],
    ['work_orders/9007199254740991', 'record', 'work_orders', 9007199254740991, undefined],
    ['work_orders/12/notes/5', 'childRecord', 'notes', 5, ['work_orders', 12]],
    ['/assets', 'collection', 'assets', undefined, undefined],
    ['/assets/2/attributes/3', 'childRecord', 'attributes', 3, ['assets', 2]],
    ['/am/profiles/4', 'record', 'profiles', 4, undefined],
    ['/bulk/maintenance/work_orders', 'bulkCollection', 'work_orders', undefined, undefined],
    ['/bulk/assets/8', 'bulkRecord', 'assets', 8, undefined],
  ];
  for (const [path, kind, resource, id, parent] of FOUND) {
    it(`${path} is a ${kind} of ${resource}`, () => {
      const m = matchPath(registry, seg(path));
      expect(m.found).toBe(true);
      if (!m.found) return;
      expect(m.kind).toBe(kind);
      expect(m.resource.name).toBe(resource);
      expect(m.id).toBe(id);
      expect(m.parent && [m.parent.resource.name, m.parent.id]).toEqual(parent);
    });
  }

  const NOT_FOUND = [
    '',
    'widgets',
    'widgets/1',
    'work_orders/',
    'work_orders/abc',
    'work_orders/0',
    'work_orders/-1',
    'work_orders/01',
    'work_orders/1.0',
    'work_orders/9007199254740993',
    'work_orders/99999999999999999999',
    'work_orders/1/widgets',
    'work_orders/1/notes/0',
    'work_orders/1/notes/2/3',
    'work_orders/1/notes/',
    '/work_orders/1',
    '/maintenance/assets',
    '/am/assets',
    '/profiles',
    '/bulk/maintenance/work_orders/1/notes',
    '/bulk/bulk/assets',
    '/bulk',
    'notes/1/work_orders',
    'service_requests/1/notes',
    'work_orders/1/service_requests',
    'constructor',
    '__proto__/1',
    'work_orders/1/constructor',
    'work_orders/1/toString',
  ];
  for (const path of NOT_FOUND) {
    it(`${JSON.stringify(path)} is not found`, () => expect(matchPath(registry, seg(path)).found).toBe(false));
  }
});

describe('the route table', () => {
  it('gives Allow from the same table the routes come from', () => {
    expect(allowHeader('collection')).toBe('GET, HEAD, POST');
    expect(allowHeader('record')).toBe('GET, HEAD, PUT, PATCH, DELETE');
    expect(allowHeader('child')).toBe('GET, HEAD, POST');
    expect(allowHeader('childRecord')).toBe('GET, HEAD, PUT, PATCH, DELETE');
    expect(allowHeader('bulkCollection')).toBe('GET, HEAD');
    expect(allowHeader('bulkRecord')).toBe('GET, HEAD');
    for (const kind of Object.keys(ROUTES) as (keyof typeof ROUTES)[])
      expect(
        allowHeader(kind)
          .split(', ')
          .filter((m) => m !== 'HEAD'),
      ).toEqual(Object.keys(ROUTES[kind]));
  });

  it('runs GET for HEAD, and nothing for a method the path lacks', () => {
    for (const kind of ['collection', 'record', 'child'] as const) expect(routeFor(kind, 'HEAD')).toBe(ROUTES[kind].GET);
    expect(routeFor('collection', 'DELETE')).toBeUndefined();
  });
});
