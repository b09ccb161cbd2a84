import { targetOf } from '../engine/http/request-target.ts';
import { matchEncoded, matchedRoute, patternOf, type Match } from '../engine/http/route-table.ts';
import { requestSlot } from '../engine/http/request-slot.ts';
import type { Registry } from '../engine/registry.ts';

/**
 * The route pattern of a path, for logs and metric labels: collection names come from the
 * registry, ids become `{id}`, and anything unknown is `unmatched`, so neither raw paths nor
 * request text reach a label (bounded cardinality, nothing a client typed).
 */
export function routeLabeler(registry: Registry, basePath: string): (pathname: string, match?: Match) => string {
  const fixed = new Set([
    '/healthz',
    '/readyz',
    '/metrics',
    `${basePath}/authenticate`,
    `${basePath}/tokens/refresh`,
    `${basePath}/events`,
    `${basePath}/batch`,
    `${basePath}/openapi.json`,
    `${basePath}/docs`,
  ]);
  /** `match`: the engine's own match of this path, when it served the request (no second matching). */
  return function routeOf(pathname, match) {
    if (fixed.has(pathname)) return pathname;
    if (pathname.startsWith(`${basePath}/docs/`)) return `${basePath}/docs/{asset}`;
    if (!pathname.startsWith(`${basePath}/`)) return 'unmatched';
    match ??= matchEncoded(registry, pathname.slice(basePath.length + 1));
    return match.found ? `${basePath}${patternOf(match)}` : 'unmatched';
  };
}

/**
 * The route label of a request, worked out once however many middlewares ask (logs and metrics
 * both label every request).
 */
export function requestRouteLabeler(routeOf: (pathname: string, match?: Match) => string): (req: Request) => string {
  const seen = requestSlot<string>('mrs.route');
  return (req) => {
    let route = seen.get(req);
    if (route === undefined) seen.set(req, (route = routeOf(targetOf(req).pathname, matchedRoute(req))));
    return route;
  };
}
