/** Errors are data: a stable code decides the status and the problem type; http/problem.ts renders them. */

export const PROBLEMS = {
  'invalid-query': { status: 400, title: 'Invalid query parameter' },
  'malformed-json': { status: 400, title: 'Malformed JSON body' },
  'invalid-request': { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'https-required': { status: 403, title: 'HTTPS required' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'invalid-transition': { status: 409, title: 'Transition not allowed' },
  'idempotency-key-in-flight': { status: 409, title: 'A request with this Idempotency-Key is still being carried out' },
  'cursor-gone': { status: 410, title: 'Cursor unknown or expired' },
  'events-gone': { status: 410, title: 'Events past retention' },
  'body-too-large': { status: 413, title: 'Body too large' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'range-not-satisfiable': { status: 416, title: 'Range not satisfiable' },
  'invalid-body': { status: 422, title: 'Invalid record' },
  'invalid-batch': { status: 422, title: 'Invalid batch' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency-Key used for another request' },
  'precondition-required': { status: 428, title: 'Precondition required' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'Service unavailable' },
  'definitions-changed': { status: 503, title: "The tenant's definitions changed" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** One offending input: a query parameter as sent, a body field by name, or a request header. */
export type ProblemItem = (
  { parameter: string; message: string } | { field: string; message: string } | { header: string; message: string }
) & {
  /** In a batch's answer: the index (from 0) of the operation the problem is about. */
  operation?: number;
};

export class EngineError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail: string;
  readonly errors: readonly ProblemItem[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ProblemCode, detail: string, errors: readonly ProblemItem[] = [], headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'EngineError';
    this.code = code;
    this.status = PROBLEMS[code].status;
    this.detail = detail;
    this.errors = errors;
    this.headers = headers;
  }
}

/**
 * What a pure stage (parse, resolve, check) returns: its value, or the error to answer with.
 * Operations throw the error; http/problem.ts renders it.
 */
export type Result<T> = { readonly value: T } | { readonly error: EngineError };

/** A result's value; its error thrown (where an operation gives up). */
export function valueOf<T>(result: Result<T>): T {
  if ('error' in result) throw result.error;
  return result.value;
}

/** A result's error; undefined when it holds a value. */
export const errorOf = (result: Result<unknown>): EngineError | undefined => ('error' in result ? result.error : undefined);

/** A result's value; undefined when it failed (its error answered elsewhere). */
export const valueOrUndefined = <T>(result: Result<T>): T | undefined => ('value' in result ? result.value : undefined);

/** The problems of every failed result, to answer together with others (every problem at once). */
export const problemsOf = (...results: readonly Result<unknown>[]): ProblemItem[] =>
  results.flatMap((r) => ('error' in r ? r.error.errors : []));

export const isEngineError = (e: unknown): e is EngineError => e instanceof EngineError;

/** A problem's `type`: this prefix and its code. */
export const PROBLEM_TYPE_PREFIX = 'urn:maintenance-records:problem:';
