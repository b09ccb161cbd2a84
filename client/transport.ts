import { ApiError, errorOf, NetworkError, Unauthorized } from './errors.ts';

export interface ApiKeyLogin {
  readonly key: string;
  readonly clientDb: string;
  readonly username: string;
}

/** Tokens as the client keeps them; `expiresAt` in epoch milliseconds. */
export interface Tokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly expiresAt?: number;
}

/** The fetch the client calls (globalThis.fetch by default). */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** The API's base URL: `https://host/v4_server/external/v1`. */
  readonly baseUrl: string;
  /** Authenticates with an API key, and again whenever refreshing fails. */
  readonly apiKey?: ApiKeyLogin;
  /** Tokens already held (from an earlier run); refreshed before they expire. */
  readonly tokens?: Tokens;
  /** Told every new pair of tokens, to keep them across runs. */
  readonly onTokens?: (tokens: Tokens) => void;
  readonly fetch?: Fetch;
  /** Attempts after the first for 429, 503 and network errors (default 6). */
  readonly retries?: number;
  /** The first backoff; each retry doubles it, with jitter (default 100 ms). */
  readonly backoffMs?: number;
  /** A wait the server asks for longer than this is not waited out: the 429 is thrown (default 60 s). */
  readonly maxWaitMs?: number;
  /** PATCH, PUT and DELETE send If-Match from the record given (default true). */
  readonly ifMatch?: boolean;
  /** Collection name -> its path under the base URL (default `maintenance/<name>`). */
  readonly paths?: Readonly<Record<string, string>>;
  /** The clock, in epoch milliseconds (tests). */
  readonly now?: () => number;
}

export interface SendInit {
  readonly query?: URLSearchParams | string;
  readonly body?: BodyInit | null;
  /** Sent as JSON. */
  readonly json?: unknown;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
  /** False for a body that cannot be sent twice (a stream): no retry once it was sent. */
  readonly retry?: boolean;
  /** Answers that are not errors besides 2xx (304). */
  readonly accept?: readonly number[];
  /** Without a bearer token (/authenticate, /tokens/refresh). */
  readonly anonymous?: boolean;
}

const WRITES = new Set(['POST', 'PATCH', 'DELETE']);
const REFRESH_MARGIN_MS = 60_000;

/** A key for a write, the same on each of its retries. */
export function newKey(): string {
  return globalThis.crypto.randomUUID();
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** The wait a 429 or 503 asks for, in ms: Retry-After, else the rate limit's reset. */
function askedWait(headers: Headers): number | undefined {
  const after = headers.get('retry-after');
  if (after !== null) {
    const s = Number(after);
    if (Number.isFinite(s)) return Math.max(0, s * 1000);
    const at = Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  const reset = headers.get('x-ratelimit-reset') ?? /;t=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1];
  return reset != null && Number.isFinite(Number(reset)) ? Number(reset) * 1000 : undefined;
}

/** The requests of one client: tokens, keys for writes, and retries that never repeat a write. */
export class Transport {
  readonly base: string;
  readonly options: ClientOptions;
  private tokens: Tokens | undefined;
  private renewing: Promise<Tokens> | undefined;
  private readonly doFetch: Fetch;
  readonly now: () => number;

  constructor(options: ClientOptions) {
    this.options = options;
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.tokens = options.tokens;
    this.doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = options.now ?? Date.now;
  }

  /** The access token, renewed first when it is about to expire (one renewal however many ask). */
  async token(): Promise<string> {
    const t = this.tokens;
    if (t && (t.expiresAt === undefined || t.expiresAt - this.now() > REFRESH_MARGIN_MS)) return t.accessToken;
    return (await this.renew(t)).accessToken;
  }

  /** Renews the tokens unless another call already replaced `stale`: refresh token first, then the API key. */
  renew(stale: Tokens | undefined): Promise<Tokens> {
    if (this.tokens !== stale) return Promise.resolve(this.tokens!);
    this.renewing ??= this.obtain(stale).finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async obtain(stale: Tokens | undefined): Promise<Tokens> {
    const key = this.options.apiKey;
    let body: { access_token: string; refresh_token?: string; expires_in?: number } | undefined;
    if (stale?.refreshToken) {
      try {
        const res = await this.send('POST', 'tokens/refresh', { json: { refresh_token: stale.refreshToken }, anonymous: true });
        body = await res.json();
      } catch (e) {
        // Used, expired or ended: the API key authenticates again.
        if (!(e instanceof ApiError) || !key) throw e;
      }
    }
    if (!body) {
      if (!key) throw new Unauthorized(401, { detail: 'No API key to authenticate with, and no usable token.' }, new Headers());
      const res = await this.send('POST', 'authenticate', {
        json: { api_key: key.key, client_db: key.clientDb, username: key.username },
        anonymous: true,
      });
      body = await res.json();
    }
    const tokens: Tokens = {
      accessToken: body!.access_token,
      ...(body!.refresh_token ? { refreshToken: body!.refresh_token } : {}),
      ...(body!.expires_in !== undefined ? { expiresAt: this.now() + body!.expires_in * 1000 } : {}),
    };
    this.tokens = tokens;
    this.options.onTokens?.(tokens);
    return tokens;
  }

  url(path: string, query?: URLSearchParams | string): string {
    const q = query === undefined ? '' : String(query);
    return `${path.startsWith('http') ? path : `${this.base}/${path.replace(/^\/+/, '')}`}${q ? `?${q}` : ''}`;
  }

  /**
   * One request: a write carries an Idempotency-Key, the same on every retry; 429, 503, a key
   * still in flight and network errors are retried with backoff; a 401 renews the token once.
   * Nothing is ever cancelled here: only the caller's signal stops a request.
   */
  async send(method: string, path: string, init: SendInit = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (WRITES.has(method) && !init.anonymous && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key'))
      headers['idempotency-key'] = newKey();
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
    const retries = init.retry === false ? 0 : (this.options.retries ?? 6);
    const url = this.url(path, init.query);
    let renewed = false;
    let sent = false;
    for (let attempt = 0; ; attempt++) {
      const bearer = init.anonymous ? undefined : this.tokens;
      if (!init.anonymous) headers.authorization = `Bearer ${await this.token()}`;
      const backoff = Math.min(30_000, (this.options.backoffMs ?? 100) * 2 ** attempt) * (0.5 + Math.random() / 2);
      let res: Response;
      try {
        const request: RequestInit & { duplex?: string } = { method, headers, body: body ?? null, signal: init.signal ?? null };
        if (body instanceof ReadableStream) request.duplex = 'half';
        res = await this.doFetch(url, request);
      } catch (e) {
        if (init.signal?.aborted || attempt >= retries) throw new NetworkError(`${method} ${url}: ${(e as Error).message}`, e);
        sent = true;
        await sleep(backoff, init.signal);
        continue;
      }
      if (res.status === 401 && !init.anonymous && !renewed) {
        renewed = true;
        await res.body?.cancel();
        await this.renew(bearer);
        attempt--;
        continue;
      }
      if (res.ok || init.accept?.includes(res.status)) return res;
      // Only an Idempotency-Key still being carried out is a 409 worth waiting for.
      const inFlight = res.status === 409 && (await res.clone().text()).includes('idempotency-key-in-flight');
      if ((res.status === 429 || res.status === 503 || inFlight) && attempt < retries) {
        const wait = askedWait(res.headers) ?? backoff;
        if (wait <= (this.options.maxWaitMs ?? 60_000)) {
          await res.body?.cancel();
          sent = true;
          await sleep(wait || backoff, init.signal);
          continue;
        }
      }
      const error = await errorOf(res);
      error.retried = sent;
      throw error;
    }
  }
}
