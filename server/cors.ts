import type { Context, MiddlewareHandler } from 'hono';
import { targetOf } from '../engine/http/request-target.ts';
import { allowedMethods, matchEncoded } from '../engine/http/route-table.ts';
import type { Registry } from '../engine/registry.ts';
import type { CorsOrigins } from './config.ts';

/** The request headers a browser may send (SPEC 1), besides the ones every browser may. */
export const ALLOW_HEADERS = 'Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID, X-Request-Id';

/** Every response header the contract defines, so a page's script can read them. */
export const EXPOSE_HEADERS = [
  'X-Total',
  'X-Cursor',
  'Link',
  'Location',
  'ETag',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'X-Request-Id',
  'X-Change-Seq',
  'Idempotency-Replayed',
  'Last-Modified',
  // Attached files' content (SPEC 13): a browser app reads a Range answer and the file's name.
  'Content-Disposition',
  'Content-Range',
  'Accept-Ranges',
].join(', ');

/**
 * What a preflight is told a path under the base path takes. An unknown path is told every
 * method the API has, so the browser sends the request and shows its 404 rather than a CORS
 * failure.
 */
export function pathMethods(registry: Registry, basePath: string): (pathname: string) => string {
  const fixed = new Map([
    [`${basePath}/authenticate`, 'POST'],
    [`${basePath}/events`, 'GET, HEAD'],
    [`${basePath}/batch`, 'POST'],
    [`${basePath}/openapi.json`, 'GET, HEAD'],
    [`${basePath}/docs`, 'GET, HEAD'],
  ]);
  const any = 'GET, HEAD, POST, PUT, PATCH, DELETE';
  return (pathname) => {
    const known = fixed.get(pathname);
    if (known) return known;
    if (pathname.startsWith(`${basePath}/docs/`)) return 'GET, HEAD';
    if (!pathname.startsWith(`${basePath}/`)) return any;
    const match = matchEncoded(registry, pathname.slice(basePath.length + 1));
    return match.found ? allowedMethods(match.kind).join(', ') : any;
  };
}

export interface CorsOptions {
  readonly origins: CorsOrigins;
  readonly basePath: string;
  /** The methods of a path under the base path, as Access-Control-Allow-Methods. */
  readonly methodsOf: (pathname: string) => string;
}

/**
 * CORS as SPEC 1 words it, in front of everything (authentication and rate limits included):
 * a preflight under the base path from a listed origin is answered 204 here; every other answer
 * to a listed origin gets Allow-Origin and Expose-Headers; an unlisted origin gets no
 * Access-Control-* header at all. Hono's own `cors()` is not used because it answers every
 * OPTIONS as a preflight (OPTIONS without Access-Control-Request-Method must reach the routes:
 * 401, then 405) and sends Expose-Headers, Max-Age and Allow-Methods to unlisted origins.
 */
export function cors(options: CorsOptions): MiddlewareHandler {
  const { origins, basePath, methodsOf } = options;
  const listed = origins === '*' ? () => true : (origin: string) => origins.includes(origin);
  const allowOrigin = (origin: string) => (origins === '*' ? '*' : origin);
  return async function corsHeaders(c, next) {
    const origin = c.req.header('origin');
    if (origin === undefined || !listed(origin)) {
      await next();
      varyOnOrigin(c);
      return;
    }
    const pathname = targetOf(c.req.raw).pathname;
    const preflight = c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined;
    if (preflight && (pathname === basePath || pathname.startsWith(`${basePath}/`))) {
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': allowOrigin(origin),
          'access-control-allow-methods': methodsOf(pathname),
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': '600',
          vary: 'Origin',
        },
      });
    }
    await next();
    const headers = varyOnOrigin(c);
    headers.set('access-control-allow-origin', allowOrigin(origin));
    headers.set('access-control-expose-headers', EXPOSE_HEADERS);
  };
}

/** Whether the CORS headers come depends on Origin, so caches must key on it; returns the answer's headers, writable. */
function varyOnOrigin(c: Context): Headers {
  try {
    c.res.headers.append('vary', 'Origin');
  } catch {
    // A Response made by fetch has immutable headers: answer a copy.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.append('vary', 'Origin');
  }
  return c.res.headers;
}
