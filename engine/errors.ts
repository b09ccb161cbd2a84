/** Errors are data: a stable code decides the status and the problem type; one place renders them. */
import { joinHeaders } from './http/headers.ts';

export const PROBLEMS = {
  'invalid-query': { status: 400, title: 'Invalid query parameter' },
  'malformed-json': { status: 400, title: 'Malformed JSON body' },
  'invalid-request': { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'https-required': { status: 403, title: 'HTTPS required' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'cursor-gone': { status: 410, title: 'Cursor unknown or expired' },
  'body-too-large': { status: 413, title: 'Body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'invalid-body': { status: 422, title: 'Invalid record' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** One offending input: a query parameter as sent, or a body field by name. */
export type ProblemItem = { parameter: string; message: string } | { field: string; message: string };

export class EngineError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail: string;
  readonly errors: readonly ProblemItem[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ProblemCode,
    detail: string,
    errors: readonly ProblemItem[] = [],
    headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'EngineError';
    this.code = code;
    this.status = PROBLEMS[code].status;
    this.detail = detail;
    this.errors = errors;
    this.headers = headers;
  }
}

export const isEngineError = (e: unknown): e is EngineError => e instanceof EngineError;

export const PROBLEM_TYPE_PREFIX = 'urn:maintenance-records:problem:';

/** The RFC 9457 body of an error. */
export function problemBody(e: EngineError): Record<string, unknown> {
  const body: Record<string, unknown> = { type: PROBLEM_TYPE_PREFIX + e.code, title: PROBLEMS[e.code].title, status: e.status, detail: e.detail };
  if (e.errors.length) body.errors = e.errors; // not a spread: see engine/http/headers.ts
  return body;
}

const PROBLEM_TYPE = { 'content-type': 'application/problem+json' };

/** The one place an error becomes an HTTP answer; anything unknown is a bare 500. */
export function problemResponse(e: unknown, onUnknown?: (e: unknown) => void, headers?: Readonly<Record<string, string>>): Response {
  const err = isEngineError(e) ? e : new EngineError('internal', 'The server could not complete the request.');
  if (!isEngineError(e)) onUnknown?.(e);
  return new Response(JSON.stringify(problemBody(err)), {
    status: err.status,
    headers: joinHeaders(PROBLEM_TYPE, headers, err.headers),
  });
}
