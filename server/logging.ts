import type { MiddlewareHandler } from 'hono';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.ts';
import { setResponseHeader } from './response-headers.ts';

export type { Logger } from 'pino';

/** JSON lines on stdout (or `destination`), one object per line, ISO timestamps. */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const options = { level, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing: the default of a service built without one (tests, embedding). */
export const silentLogger = (): Logger => pino({ level: 'silent' });

/** An incoming id is kept when it is short and plain; anything else is replaced (it is echoed and logged). */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(req: Request): string {
  const sent = req.headers.get('x-request-id');
  return sent !== null && SANE_ID.test(sent) ? sent : crypto.randomUUID();
}

/**
 * Each request's id, the same for everyone who asks. The engine puts it in its answers as they
 * are made (`headersFor`); other answers get it from the request log afterwards.
 */
export function requestIds() {
  const ids = new WeakMap<Request, string>();
  const echoed = new WeakSet<Request>();
  const of = (req: Request) => {
    let id = ids.get(req);
    if (id === undefined) ids.set(req, (id = requestIdOf(req)));
    return id;
  };
  return {
    of,
    /** The headers of an answer that will carry the id itself (the engine's, via responseHeaders). */
    headersFor(req: Request): Record<string, string> {
      echoed.add(req);
      return { 'x-request-id': of(req) };
    },
    echoed: (req: Request) => echoed.has(req),
  };
}

export type RequestIds = ReturnType<typeof requestIds>;

/**
 * Echoes the request id in `X-Request-Id` and logs one line per request: id, method, route
 * pattern, status, latency. Never headers, query strings or bodies (tokens, keys, cursors).
 */
export function requestLog(logger: Logger, routeOf: (req: Request) => string, ids: RequestIds = requestIds()): MiddlewareHandler {
  return async function logRequest(c, next) {
    const start = performance.now();
    const reqId = ids.of(c.req.raw);
    await next();
    if (!ids.echoed(c.req.raw)) setResponseHeader(c, 'x-request-id', reqId);
    const status = c.res.status;
    const level = status >= 500 ? 'error' : 'info';
    if (!logger.isLevelEnabled(level)) return; // LOG_LEVEL above it: no line to build
    const line = { reqId, method: c.req.method, route: routeOf(c.req.raw), status, latencyMs: Math.round((performance.now() - start) * 10) / 10 };
    logger[level](line, 'request');
  };
}
