import { MAX_BATCH_OPERATIONS } from '../http/batch-route.ts';
import type { Registry } from '../registry.ts';
import { createExample } from './examples.ts';
import { IDEMPOTENCY_KEY } from './operations.ts';
import { errorRefs, headers } from './responses.ts';

type Json = Record<string, unknown>;

/** The request body of a batch: 1 to 100 writes on collection and record paths. */
export const BATCH_REQUEST_SCHEMA: Json = {
  type: 'object',
  required: ['operations'],
  additionalProperties: false,
  properties: {
    operations: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_OPERATIONS,
      items: {
        type: 'object',
        required: ['method', 'path'],
        additionalProperties: false,
        properties: {
          method: { type: 'string', enum: ['POST', 'PATCH', 'PUT', 'DELETE'] },
          path: {
            type: 'string',
            description: 'A path as the single request takes, relative to the base (`/{group}/{collection}/{id}`) or with it.',
          },
          body: { description: 'The body the single request would send (POST, PATCH, PUT; none on DELETE).' },
          if_match: {
            type: 'string',
            description: 'As the If-Match header of the single request (PATCH, PUT, DELETE): strong tags or `*`.',
          },
        },
      },
    },
  },
};

/** The answer of a batch that succeeded: one entry per operation, in order. */
export const BATCH_RESPONSE_SCHEMA: Json = {
  type: 'array',
  items: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'integer', description: 'The status the single request would have answered: 201, 200, or 204 for a DELETE.' },
      body: { type: 'object', description: 'The record written (none for a DELETE).' },
      location: { type: 'string', description: "A create's new record's path." },
      etag: { type: 'string', description: "The record's new strong ETag." },
    },
  },
};

/** `POST {base}/batch` (SPEC 10). */
export function batchPath(registry: Registry): Json {
  const first = [...registry.resources.values()][0];
  const example = first && {
    operations: [
      { method: 'POST', path: first.path, body: createExample(first) },
      { method: 'PATCH', path: `${first.path}/1`, body: {}, if_match: '"3"' },
      { method: 'DELETE', path: `${first.path}/2` },
    ],
  };
  return {
    post: {
      tags: ['batch'],
      operationId: 'run_batch',
      summary: 'Run several writes, all or nothing',
      description:
        `1 to ${MAX_BATCH_OPERATIONS} POST, PATCH, PUT or DELETE operations on collection and record paths, run in order in one transaction ` +
        '(their change-feed events too). If one would fail, nothing is written and the answer is its status, each `errors` entry ' +
        'carrying `operation`: its index from 0. Each operation needs its own permission and counts as one call against the rate ' +
        'limit (a batch larger than what is left: 429, nothing done).',
      parameters: [IDEMPOTENCY_KEY],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/batch.request' }, ...(example ? { example } : {}) } },
      },
      responses: {
        '200': {
          description: 'Every operation was carried out: one answer each, in order.',
          headers: headers(['Idempotency-Replayed'], true),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/batch.response' } } },
        },
        ...errorRefs([400, 401, 403, 404, 405, 409, 412, 413, 415, 422, 428, 429, 503]),
      },
    },
  };
}
