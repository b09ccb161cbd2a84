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
  /** Counts one call against the key's window (starting one when none is active). */
  hit(key: string): Promise<WindowState>;
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
