import { describe, expect, it } from 'vitest';
import { matchedRoute, matchPath, noteMatch } from '../engine/http/route-table.ts';
import { createRegistry } from '../engine/registry.ts';
import { loadResources } from './load-resources.ts';
import { requestRouteLabeler, routeLabeler } from './route-label.ts';

const registry = createRegistry(await loadResources());
const B = '/v4_server/external/v1';
const M = `${B}/maintenance`;
const routeOf = routeLabeler(registry, B);

describe('route labels', () => {
  const cases: [string, string][] = [
    [`${M}/work_orders`, `${M}/work_orders`],
    [`${M}/work_orders/12345`, `${M}/work_orders/{id}`],
    [`${M}/work_orders/7/notes`, `${M}/work_orders/{id}/notes`],
    [`${M}/work%5Forders/7`, `${M}/work_orders/{id}`],
    [`${M}/nothing/7`, 'unmatched'],
    [`${M}/work_orders/7/notes/3`, `${M}/work_orders/{id}/notes/{child_id}`],
    [`${B}/bulk/maintenance/work_orders`, `${B}/bulk/maintenance/work_orders`],
    [`${B}/bulk/maintenance/work_orders/3`, `${B}/bulk/maintenance/work_orders/{id}`],
    [`${B}/work_orders/3`, 'unmatched'],
    [`${M}/work_orders/0`, 'unmatched'],
    [`${M}`, 'unmatched'],
    [`${B}/authenticate`, `${B}/authenticate`],
    [`${B}/docs/x.css`, `${B}/docs/{asset}`],
  ];

  it.each(cases)('%s is labelled %s, from the path or from the engine match of it alike', (path, label) => {
    expect(routeOf(path)).toBe(label);
    if (path.startsWith(`${M}/`)) {
      const segments = path
        .slice(B.length + 1)
        .split('/')
        .map(decodeURIComponent);
      expect(routeOf(path, matchPath(registry, segments))).toBe(label);
    }
  });

  it('a request the engine matched is labelled from that match, without matching again', () => {
    const ofRequest = requestRouteLabeler(routeOf);
    const req = new Request(`http://h${M}/work_orders/5`);
    expect(matchedRoute(req)).toBeUndefined();
    // The match noted is what counts (here, deliberately, another collection's).
    noteMatch(req, matchPath(registry, ['maintenance', 'notes', '5']));
    expect(ofRequest(req)).toBe(`${M}/notes/{id}`);
    expect(ofRequest(new Request(`http://h${M}/work_orders/5`))).toBe(`${M}/work_orders/{id}`);
  });
});
