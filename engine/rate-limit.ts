import { EngineError } from './errors.ts';
import type { Caller } from './http/caller.ts';

/**
 * Rate limiting as the engine sees it: a limiter counts calls per key in fixed windows; the
 * stores (process memory, a database) are the host's (see server/rate-limit for the service's).
 */

/** One fixed window per key, as a client sees it. */
export interface WindowState {
  readonly allowed: boolean;
  readonly limit: number;
  /** Calls left in the window (0 on a refusal). */
  readonly remaining: number;
  /** Whole seconds until the window ends. */
  readonly resetS: number;
  readonly windowS: number;
}

export interface RateLimiter {
  readonly limit: number;
  readonly windowS: number;
  /**
   * Counts one call (or `cost` calls, default 1: a batch's operations) against the key's window
   * (starting one when none is active); allowed only when all of them fit in what is left. A store that
   * knows at once (process memory) answers in the same turn; one that asks a database, later.
   */
  hit(key: string, cost?: number): WindowState | Promise<WindowState>;
  close(): Promise<void>;
}

/**
 * The headers of every rate-limited call: the X-RateLimit trio, the IETF draft
 * RateLimit-Policy / RateLimit pair, and Retry-After on a refusal.
 */
export function rateLimitHeaders(w: WindowState): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(w.resetS),
    'ratelimit-policy': `"default";q=${w.limit};w=${w.windowS}`,
    ratelimit: `"default";r=${w.remaining};t=${w.resetS}`,
  };
  if (!w.allowed) headers['retry-after'] = String(w.resetS);
  return headers;
}

export const tooManyRequests = (headers: Record<string, string>) =>
  new EngineError('rate-limited', `Rate limit exceeded: try again in ${headers['retry-after']} s.`, [], headers);

/** Counts `cost` calls of a caller against its window (createEngine's `rateLimit`, wired once): the caller with the window's headers, or the 429. */
export type ChargeCaller = (req: Request, caller: Caller, cost: number) => Caller | Promise<Caller>;

/**
 * Counts the call against the caller's window: over the limit it throws the 429 (the call does
 * nothing); otherwise the caller goes on carrying the window's headers for every answer.
 */
export function limitCaller<C extends Caller>(limiter: RateLimiter, key: string, caller: C, cost = 1): C | Promise<C> {
  const state = cost === 1 ? limiter.hit(key) : limiter.hit(key, cost);
  return isPromise(state) ? state.then((s) => withWindow(caller, s)) : withWindow(caller, state);
}

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as { then?: unknown }).then === 'function';

const withWindow = <C extends Caller>(caller: C, state: WindowState): C => Object.assign({}, caller, { headers: windowHeaders(state) });

/** A counted call's headers; over the limit, the 429 that carries them (the call does nothing). */
export function windowHeaders(state: WindowState): Record<string, string> {
  const headers = rateLimitHeaders(state);
  if (!state.allowed) throw tooManyRequests(headers);
  return headers;
}
