import { EVENT_OPS } from '../events/event-log.ts';
import { DEFAULT_EVENTS_LIMIT, MAX_EVENTS_LIMIT } from '../events/feed-query.ts';
import type { Registry } from '../registry.ts';
import { createExample, recordExample } from './examples.ts';
import { errorRefs, headers } from './responses.ts';

type Json = Record<string, unknown>;

/** The schema of a change-feed event (SPEC 9); its record is one of the collections' records. */
export function eventSchema(registry: Registry): Json {
  const names = [...registry.resources.keys()];
  return {
    type: 'object',
    description: 'One committed change of a record.',
    properties: {
      seq: {
        type: 'integer',
        minimum: 1,
        description: "The change's place in the tenant's feed: increases in commit order; gaps may exist, never filled later.",
      },
      at: { type: 'string', format: 'date-time', description: 'When the change was made (RFC 3339, UTC).' },
      collection: { type: 'string', enum: names },
      id: { type: 'integer', description: "The record's id." },
      op: { type: 'string', enum: [...EVENT_OPS] },
      changed: {
        type: 'array',
        items: { type: 'string' },
        description:
          'The fields whose value the change set: every field on create, ["deleted"] on delete, [] for a write that changed none.',
      },
      record: {
        oneOf: names.map((n) => ({ $ref: `#/components/schemas/${n}.record` })),
        description: 'The whole record as after the change.',
      },
      user: { type: ['string', 'null'], description: 'Who made the change (null where the engine runs without authentication).' },
    },
    required: ['seq', 'at', 'collection', 'id', 'op', 'changed', 'record', 'user'],
  };
}

const queryParameter = (name: string, description: string, schema: Json, repeat = false): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: repeat ? { type: 'array', items: schema } : schema,
  ...(repeat ? { style: 'form', explode: true } : {}),
});

/** `GET {base}/events`: the change feed as JSON pages, or streamed (Server-Sent Events). */
export function eventsPath(registry: Registry): Json {
  const first = [...registry.resources.values()][0];
  const example = first && {
    seq: 42,
    at: '2024-01-31T08:00:00.000Z',
    collection: first.name,
    id: 1,
    op: 'update',
    changed: Object.keys(first.definition.fields).slice(0, 1),
    record: recordExample(first, createExample(first)),
    user: 'admin',
  };
  return {
    get: {
      tags: ['events'],
      operationId: 'read_events',
      summary: 'Follow changes',
      description:
        "The tenant's committed changes in ascending seq, of the collections your roles may read. Start from a list's X-Change-Seq " +
        '(or 0), then ask again with `$after` set to the last seq you got, or to X-Change-Seq when the page was not full. ' +
        'A position whose events are past retention answers 410 (`events-gone`): list again. ' +
        'To follow changes as they happen, ask with `Accept: text/event-stream` (Server-Sent Events, resumable with `Last-Event-ID`).',
      parameters: [
        queryParameter('$after', 'Events with a greater seq.', { type: 'integer', minimum: 0, default: 0 }),
        queryParameter('$limit', `Events per page (over ${MAX_EVENTS_LIMIT} served as ${MAX_EVENTS_LIMIT}).`, {
          type: 'integer',
          minimum: 1,
          default: DEFAULT_EVENTS_LIMIT,
        }),
        queryParameter(
          'collection',
          'Only these collections. Repeat the parameter for several.',
          { type: 'string', enum: [...registry.resources.keys()] },
          true,
        ),
        queryParameter(
          'op',
          'Only these kinds of change. Repeat the parameter for several.',
          { type: 'string', enum: [...EVENT_OPS] },
          true,
        ),
      ],
      responses: {
        '200': {
          description: 'The events, oldest first: a bare array, or with `Accept: text/event-stream` a stream of them.',
          headers: headers(['X-Change-Seq'], true),
          content: {
            'application/json': {
              schema: { type: 'array', items: { $ref: '#/components/schemas/event' } },
              ...(example ? { example: [example] } : {}),
            },
            'text/event-stream': {
              schema: {
                type: 'string',
                description:
                  'Asked for with `Accept: text/event-stream`: the events after `$after` (or `Last-Event-ID`), then each new one ' +
                  'within a second of its commit, as Server-Sent Events: `id: <seq>`, `event: change`, `data: <the event as one ' +
                  'line of JSON>` and a blank line; a `: keep-alive` comment when nothing else was sent for a while. The stream ' +
                  'ends when your token expires: authenticate again and reconnect with the header `Last-Event-ID: <the last id received>` ' +
                  '(it wins over `$after`; not a whole number: 400).',
              },
              ...(example ? { example: `id: ${example.seq}\nevent: change\ndata: ${JSON.stringify(example)}\n\n: keep-alive\n\n` } : {}),
            },
          },
        },
        ...errorRefs([400, 401, 405, 410, 429, 503]),
      },
    },
  };
}
