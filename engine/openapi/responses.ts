import { PROBLEM_TYPE_PREFIX } from '../errors.ts';

type Json = Record<string, unknown>;

const integerHeader = (description: string): Json => ({ description, schema: { type: 'integer', minimum: 0 } });
const stringHeader = (description: string): Json => ({ description, schema: { type: 'string' } });

/** Every response header the API sends, as `components.headers`. */
export const HEADERS = {
  'X-Request-Id': stringHeader(
    'The request id: the one sent (when it is 1 to 128 of A-Z a-z 0-9 . _ : -) or a new one; it names the request in the logs.',
  ),
  'X-Cursor': stringHeader('The cursor of this list: send it back as $cursor to read other pages of the same snapshot.'),
  'X-Total': integerHeader('The number of records in the snapshot.'),
  'X-Change-Seq': integerHeader(
    "The highest seq of the tenant's change feed that this answer reflects: follow the feed from it with GET /events?$after=.",
  ),
  Link: stringHeader(
    'rel="first", "prev", "next", "last" links, each a path with $cursor and $page only (a literal $); absent when nothing matched.',
  ),
  'X-RateLimit-Limit': integerHeader('Calls allowed per window.'),
  'X-RateLimit-Remaining': integerHeader('Calls left in the window (0 on a 429).'),
  'X-RateLimit-Reset': integerHeader('Whole seconds until the window ends.'),
  'RateLimit-Policy': stringHeader('The policy, IETF draft form: `"default";q=<calls>;w=<seconds>`.'),
  RateLimit: stringHeader('The window state, IETF draft form: `"default";r=<remaining>;t=<seconds left>`.'),
  'Retry-After': integerHeader('Whole seconds to wait before calling again (on a 429, equal to X-RateLimit-Reset).'),
  Location: stringHeader("The new record's absolute path."),
  ETag: stringHeader(
    "The record's strong entity tag: it changes with every write to the record. Send it in If-Match to write only that version, or in If-None-Match to get 304 while it is current.",
  ),
  'Last-Modified': stringHeader("The record's `updated`, as an HTTP date: send it in If-Modified-Since to get 304 while it is current."),
  'Idempotency-Replayed': stringHeader(
    '`true` when this is the answer kept for an earlier request with the same Idempotency-Key; nothing was done again.',
  ),
  Allow: stringHeader('The methods this path allows.'),
  'WWW-Authenticate': stringHeader('Bearer, with error="invalid_token" when a token was sent (RFC 6750).'),
} as const;
export type HeaderName = keyof typeof HEADERS;

const RATE_LIMIT: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];

/** A response's `headers` member: X-Request-Id always, rate-limit headers where the call counted. */
export function headers(names: readonly HeaderName[], rateLimited: boolean): Json {
  const all: HeaderName[] = ['X-Request-Id', ...(rateLimited ? RATE_LIMIT : []), ...names];
  return Object.fromEntries(all.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
}

export const PROBLEM_SCHEMA: Json = {
  type: 'object',
  description: 'An RFC 9457 problem.',
  properties: {
    type: { type: 'string', description: `\`${PROBLEM_TYPE_PREFIX}<code>\`` },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Every offending input: the query parameter as sent, the body field by name, or the request header.',
      items: {
        type: 'object',
        properties: {
          parameter: { type: 'string' },
          field: { type: 'string' },
          header: { type: 'string' },
          message: { type: 'string' },
          operation: {
            type: 'integer',
            minimum: 0,
            description: "In a batch's answer: the index (from 0) of the operation the problem is about.",
          },
        },
        required: ['message'],
      },
    },
  },
  required: ['type', 'title', 'status', 'detail'],
};

export const ERROR_STATUSES = [400, 401, 403, 404, 405, 409, 410, 412, 413, 415, 416, 422, 428, 429, 503] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

const ERRORS: Record<ErrorStatus, { name: string; description: string; headers: HeaderName[] }> = {
  400: {
    name: 'BadRequest',
    description:
      'Malformed JSON, a bad query parameter, or a malformed If-Match, If-None-Match, Idempotency-Key or Last-Event-ID header (each named in errors).',
    headers: [],
  },
  401: {
    name: 'Unauthorized',
    description: 'No valid token (missing, malformed, expired or revoked), or failed authentication.',
    headers: ['WWW-Authenticate'],
  },
  403: {
    name: 'Forbidden',
    description: "The user's roles lack the permission, or the request did not arrive over HTTPS where HTTPS is required.",
    headers: [],
  },
  404: {
    name: 'NotFound',
    description: 'Unknown collection, record, child collection or parent; soft-deleted records unless $deleted=true.',
    headers: [],
  },
  405: { name: 'MethodNotAllowed', description: 'Another method on this path: Allow lists the ones it takes.', headers: ['Allow'] },
  409: {
    name: 'Conflict',
    description: 'A request with this Idempotency-Key is still being carried out (type ending idempotency-key-in-flight): retry it later.',
    headers: ['Retry-After'],
  },
  410: {
    name: 'Gone',
    description: 'Unknown or expired cursor; on the change feed, a position past retention (events-gone).',
    headers: [],
  },
  412: {
    name: 'PreconditionFailed',
    description: "No If-Match tag is the record's current one (weak tags never are): nothing was written; ETag is the current tag.",
    headers: ['ETag'],
  },
  413: { name: 'PayloadTooLarge', description: 'The body is over 1 MiB.', headers: [] },
  415: { name: 'UnsupportedMediaType', description: 'The body is not application/json.', headers: [] },
  416: {
    name: 'RangeNotSatisfiable',
    description: "A file's content: the Range names no byte of it; Content-Range gives its size.",
    headers: [],
  },
  422: {
    name: 'UnprocessableContent',
    description:
      'Valid JSON that is not a valid record (each field named in errors), or an Idempotency-Key already used for another request (type ending idempotency-key-reused).',
    headers: [],
  },
  428: { name: 'PreconditionRequired', description: 'REQUIRE_IF_MATCH is on and the request has no If-Match header.', headers: [] },
  429: { name: 'TooManyRequests', description: 'Rate limit exceeded; nothing was done.', headers: ['Retry-After'] },
  503: {
    name: 'ServiceUnavailable',
    description:
      "During a deploy (type ending definitions-changed): the tenant's tables and this server's definitions differ, because the tables moved past a server that must restart, or the tenant is not yet migrated to this server's; nothing was done. Call again after Retry-After. Also a server shutting down (type ending unavailable).",
    headers: ['Retry-After'],
  },
};

/** `components.responses`: one problem+json response per error status. */
export function errorResponses(): Record<string, Json> {
  return Object.fromEntries(
    ERROR_STATUSES.map((status) => {
      const e = ERRORS[status];
      return [
        e.name,
        {
          description: e.description,
          // The token check comes before the rate limit on the collections' paths; /authenticate counts every call.
          headers: headers(e.headers, true),
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      ];
    }),
  );
}

/** `responses` entries referring to the shared error responses. */
export const errorRefs = (statuses: readonly ErrorStatus[]): Json =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/${ERRORS[s].name}` }]));
