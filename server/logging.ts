import type { MiddlewareHandler } from 'hono';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.ts';
import { setResponseHeader } from './response-headers.ts';
import { requestSlot } from '../engine/http/request-slot.ts';

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

/** Who made a request, once its token or API key is checked: the tenant (`client_db`) and the username. Never a secret. */
export interface Who {
  readonly tenant: string;
  readonly user: string;
}

/**
 * Each request's id, the same for everyone who asks. The engine puts it in its answers as they
 * are made (`headersFor`); other answers get it from the request log afterwards. Beside it, who
 * made the request, set where the caller is proven (the server's token check, /authenticate),
 * so the request log can name them.
 */
export function requestIds() {
  const ids = requestSlot<string>('mrs.requestId');
  const echoed = requestSlot<true>('mrs.requestIdEchoed');
  const who = requestSlot<Who>('mrs.who');
  const of = (req: Request) => {
    let id = ids.get(req);
    if (id === undefined) ids.set(req, (id = requestIdOf(req)));
    return id;
  };
  return {
    of,
    /** The headers of an answer that will carry the id itself (the engine's, via responseHeaders). */
    headersFor(req: Request): Record<string, string> {
      echoed.set(req, true);
      return { 'x-request-id': of(req) };
    },
    echoed: (req: Request) => echoed.get(req) === true,
    identify: (req: Request, w: Who) => who.set(req, { tenant: w.tenant, user: w.user }),
    whoOf: (req: Request): Who | undefined => who.get(req),
  };
}

export type RequestIds = ReturnType<typeof requestIds>;

/**
 * Around every request: echoes its id in `X-Request-Id`, logs one line (id, method, route
 * pattern, status, latency, and the tenant and user when the request proved who it is; never
 * headers, query strings or bodies: tokens, keys, cursors) and
 * hands the same figures to `observe` (the request metrics). One middleware with one timing and
 * one route label for both.
 */
export function requestLog(
  logger: Logger,
  routeOf: (req: Request) => string,
  ids: RequestIds = requestIds(),
  observe?: (method: string, route: string, status: number, seconds: number) => void,
): MiddlewareHandler {
  return async function logRequest(c, next) {
    const start = performance.now();
    const req = c.req.raw;
    const reqId = ids.of(req);
    await next();
    if (!ids.echoed(req)) setResponseHeader(c, 'x-request-id', reqId);
    const status = c.res.status;
    const ms = performance.now() - start;
    const level = status >= 500 ? 'error' : 'info';
    const logged = logger.isLevelEnabled(level); // LOG_LEVEL above it: no line to build
    if (!observe && !logged) return;
    const route = routeOf(req);
    observe?.(req.method, route, status, ms / 1000);
    if (logged)
      logger[level]({ reqId, method: req.method, route, status, latencyMs: Math.round(ms * 10) / 10, ...ids.whoOf(req) }, 'request');
  };
}
