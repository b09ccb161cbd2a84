import type { Context, MiddlewareHandler } from 'hono';
import { EngineError } from '../engine/errors.ts';
import { problemResponse } from '../engine/http/problem.ts';
import type { Config } from './config.ts';
import { setResponseHeader } from './response-headers.ts';

export type HttpsPolicyOptions = Pick<Config, 'trustProxy'> & {
  /** Paths served whatever the transport (health checks and metrics come from inside the network). */
  readonly exempt?: (pathname: string) => boolean;
};

/**
 * Whether the request reached this process over TLS. On Node the socket says so: the request URL
 * does not, as a client may send an absolute-form `https://` target over plain HTTP. Other fetch
 * hosts (and app.request in tests) build the URL from the connection, so their URL is trusted.
 */
function overTls(c: Context): boolean {
  const incoming = (c.env as { incoming?: { socket?: { encrypted?: boolean } } } | undefined)?.incoming;
  if (incoming) return incoming.socket?.encrypted === true;
  return new URL(c.req.url).protocol === 'https:';
}

/** The scheme the nearest proxy saw: the last entry of `X-Forwarded-Proto` (a proxy appends or replaces). */
function forwardedProto(c: Context): string | undefined {
  const header = c.req.header('x-forwarded-proto');
  return header?.split(',').pop()?.trim().toLowerCase();
}

const refusal = () =>
  new EngineError(
    'https-required',
    'This server accepts HTTPS only: send the request to the https:// address (plain HTTP is refused so tokens never travel in clear).',
  );

/**
 * REQUIRE_HTTPS (mounted only when it is set): a request that did not arrive over TLS, or from
 * a trusted proxy (TRUST_PROXY) saying `X-Forwarded-Proto: https`, is refused with 403 before
 * anything else runs. HTTPS answers then carry Strict-Transport-Security.
 */
export function httpsPolicy(options: HttpsPolicyOptions): MiddlewareHandler {
  const exempt = options.exempt ?? (() => false);
  return async function requireHttps(c, next) {
    const secure = overTls(c) || (options.trustProxy && forwardedProto(c) === 'https');
    if (!secure && !exempt(new URL(c.req.url).pathname)) return problemResponse(refusal());
    await next();
    if (secure) setResponseHeader(c, 'strict-transport-security', 'max-age=31536000');
  };
}
