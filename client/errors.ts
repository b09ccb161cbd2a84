/** A problem+json body as the server sends it (RFC 9457). */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly errors?: readonly { field?: string; parameter?: string; header?: string; message: string }[];
  readonly [extra: string]: unknown;
}

/** Any answer the server refused: its status, its problem details and its headers. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** True when the request had been sent before and this answer came to a retry of it. */
  retried = false;
  constructor(
    readonly status: number,
    readonly problem: Problem,
    readonly headers: Headers,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

/** The record changed since the tag sent in If-Match was taken; `etag` is its current tag. */
export class PreconditionFailed extends ApiError {
  override name = 'PreconditionFailed';
  get etag(): string | undefined {
    return this.headers.get('etag') ?? undefined;
  }
}
/** The typed error of each status, a subclass of ApiError by that name (catch it with `instanceof`). */
const NAMES = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  422: 'Unprocessable',
  428: 'PreconditionRequired',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
} as const;

const subclass = (name: string): typeof ApiError =>
  ({
    [name]: class extends ApiError {
      override name = name;
    },
  })[name]!;
const KINDS = Object.fromEntries(Object.values(NAMES).map((name) => [name, subclass(name)])) as Record<
  (typeof NAMES)[keyof typeof NAMES],
  typeof ApiError
>;

export const {
  BadRequest,
  Unauthorized,
  Forbidden,
  NotFound,
  Conflict,
  Gone,
  Unprocessable,
  PreconditionRequired,
  TooManyRequests,
  ServiceUnavailable,
} = KINDS;
/** Each typed error's name as a type too, for annotations (`(e: NotFound) => ...`). */
export type BadRequest = ApiError;
export type Unauthorized = ApiError;
export type Forbidden = ApiError;
export type NotFound = ApiError;
export type Conflict = ApiError;
export type Gone = ApiError;
export type Unprocessable = ApiError;
export type PreconditionRequired = ApiError;
export type TooManyRequests = ApiError;
export type ServiceUnavailable = ApiError;

/** The server could not be reached (or the connection broke) on every attempt. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

const BY_STATUS: Record<number, typeof ApiError> = {
  ...Object.fromEntries(Object.entries(NAMES).map(([status, name]) => [status, KINDS[name]])),
  412: PreconditionFailed,
};

/** The typed error of a refused answer, its body read as problem+json when it is one. */
export async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let problem: Problem = { status: res.status, title: res.statusText };
  try {
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (parsed && typeof parsed === 'object') problem = parsed as Problem;
  } catch {
    if (text) problem = { ...problem, detail: text.slice(0, 500) };
  }
  const Kind = BY_STATUS[res.status] ?? ApiError;
  return new Kind(res.status, problem, res.headers);
}
