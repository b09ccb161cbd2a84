import { EngineError, isEngineError, PROBLEM_TYPE_PREFIX, PROBLEMS } from '../errors.ts';
import { joinHeaders } from './headers.ts';

/** The one place an EngineError becomes problem+json (RFC 9457). */

/** The RFC 9457 body of an error. */
export function problemBody(e: EngineError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: PROBLEM_TYPE_PREFIX + e.code,
    title: PROBLEMS[e.code].title,
    status: e.status,
    detail: e.detail,
  };
  if (e.errors.length) body.errors = e.errors;
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
