import type { OperationName } from '../http/route-table.ts';
import type { Resource } from '../registry.ts';
import { DELETED_PARAMETER, filterParameters, reservedParameters, shapeParameters } from './parameters.ts';
import { createExample, patchExample, recordExample } from './examples.ts';
import { oneOf, pluralName } from './names.ts';
import { errorRefs, headers, type HeaderName } from './responses.ts';

type Json = Record<string, unknown>;

/** Where an operation runs: its collection and, on child paths, the parent collection. */
export interface OperationSite {
  readonly resource: Resource;
  readonly parent?: { readonly resource: Resource; readonly field: string } | undefined;
}

const schemaRef = (resource: Resource, part: string) => ({ $ref: `#/components/schemas/${resource.name}.${part}` });
const json = (schema: Json, example: unknown) => ({ 'application/json': { schema, example } });
const body = (resource: Resource, part: string, description: string, example: Json) => ({
  required: true,
  description,
  content: json(schemaRef(resource, part), example),
});

/** The parent link a child path supplies, if the site is a child path. */
const fromPath = (site: OperationSite) => site.parent?.field;
/** The record a site's examples show: made from its create example. */
const stored = (site: OperationSite, body = createExample(site.resource, fromPath(site))) =>
  recordExample(site.resource, body, site.parent);

const listResponse = (site: OperationSite) => ({
  description: 'A page of records: a bare JSON array.',
  headers: headers(['X-Cursor', 'X-Total', 'Link'], true),
  content: json({ type: 'array', items: schemaRef(site.resource, 'record') }, [stored(site)]),
});
const recordResponse = (resource: Resource, description: string, example: Json, extra: HeaderName[] = []) => ({
  description,
  headers: headers(['ETag', ...extra], true),
  content: json(schemaRef(resource, 'record'), example),
});

const headerParameter = (name: string, description: string): Json => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: { type: 'string' },
});
const IF_MATCH = headerParameter(
  'If-Match',
  "Write only if the record's current ETag is one of these strong tags (comma-separated), or `*`: the record exists. Otherwise 412 and nothing is written. Required (else 428) when the service runs with REQUIRE_IF_MATCH=true.",
);
const IF_NONE_MATCH = headerParameter('If-None-Match', "304 with no body when the record's current ETag is one of these tags, or `*`.");
const IF_MODIFIED_SINCE = headerParameter(
  'If-Modified-Since',
  'An HTTP date: 304 with no body when the record was not changed after it (whole seconds). Ignored with If-None-Match.',
);
export const IDEMPOTENCY_KEY = headerParameter(
  'Idempotency-Key',
  '1 to 255 visible ASCII characters. The first request with a key is carried out and its answer kept (IDEMPOTENCY_TTL_S); the same request again gets that answer with Idempotency-Replayed: true; another request with the key is 422; while the first runs, 409.',
);

const ofParent = (site: OperationSite) => (site.parent ? ` of ${oneOf(site.parent.resource.name)}` : '');
const underParent = (site: OperationSite) => (site.parent ? ` under ${oneOf(site.parent.resource.name)}` : '');

/** The OpenAPI operation of each engine operation; a new operation name fails the type check until it is documented. */
export const OPERATION_DOCS: Record<OperationName, (site: OperationSite) => Json> = {
  list: (site) => ({
    operationId: `list_${site.resource.name}`,
    summary: `List ${pluralName(site.resource.name)}`,
    description:
      'Makes a cursor (a snapshot of the matching ids) and answers a page of it; with $cursor, answers another page of that snapshot.',
    parameters: [...reservedParameters(site.resource), ...filterParameters(site.resource)],
    responses: { '200': listResponse(site), ...errorRefs([400, 401, 403, 405, 410, 429, 503]) },
  }),
  childList: (site) => ({
    ...OPERATION_DOCS.list(site),
    operationId: `list_${site.resource.name}_of_${site.parent!.resource.name}`,
    summary: `List the ${pluralName(site.resource.name)}${ofParent(site)}`,
    responses: { '200': listResponse(site), ...errorRefs([400, 401, 403, 404, 405, 410, 429, 503]) },
  }),
  create: (site) => {
    const example = createExample(site.resource, fromPath(site));
    return {
      operationId: `create_${site.resource.name}`,
      summary: `Create ${oneOf(site.resource.name)}`,
      parameters: [IDEMPOTENCY_KEY],
      requestBody: body(site.resource, 'create', 'The new record.', example),
      responses: {
        '201': recordResponse(site.resource, 'Created: the record as stored.', stored(site, example), ['Location', 'Idempotency-Replayed']),
        ...errorRefs([400, 401, 403, 405, 409, 413, 415, 422, 429, 503]),
      },
    };
  },
  childCreate: (site) => {
    const docs = OPERATION_DOCS.create(site);
    return {
      ...docs,
      operationId: `create_${site.resource.name}_of_${site.parent!.resource.name}`,
      summary: `Create ${oneOf(site.resource.name)}${underParent(site)}`,
      description: `${site.parent!.field} is taken from the path; a different value in the body is 422.`,
      responses: { ...(docs.responses as Json), ...errorRefs([400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 503]) },
    };
  },
  read: (site) => ({
    operationId: `read_${site.resource.name}`,
    summary: `Read ${oneOf(site.resource.name)}`,
    parameters: [DELETED_PARAMETER, ...shapeParameters(site.resource), IF_NONE_MATCH, IF_MODIFIED_SINCE],
    responses: {
      '200': recordResponse(site.resource, 'The record.', stored(site), ['Last-Modified']),
      '304': {
        description:
          'Not modified: If-None-Match names the current ETag, or (without it) If-Modified-Since is not before Last-Modified. No body.',
        headers: headers(['ETag', 'Last-Modified'], true),
      },
      ...errorRefs([400, 401, 403, 404, 405, 429, 503]),
    },
  }),
  replace: (site) => {
    const example = createExample(site.resource);
    return {
      operationId: `replace_${site.resource.name}`,
      summary: `Replace ${oneOf(site.resource.name)}`,
      parameters: [IF_MATCH],
      requestBody: body(site.resource, 'replace', 'The whole record; optional fields left out are reset to their defaults.', example),
      responses: {
        '200': recordResponse(site.resource, 'The record as stored.', stored(site, example)),
        ...errorRefs([400, 401, 403, 404, 405, 412, 413, 415, 422, 428, 429, 503]),
      },
    };
  },
  patch: (site) => {
    const example = patchExample(site.resource);
    return {
      operationId: `patch_${site.resource.name}`,
      summary: `Change some fields of ${oneOf(site.resource.name)}`,
      parameters: [IF_MATCH, IDEMPOTENCY_KEY],
      requestBody: body(site.resource, 'patch', 'The fields to change.', example),
      responses: {
        '200': recordResponse(site.resource, 'The record as stored.', { ...stored(site), ...example }, ['Idempotency-Replayed']),
        ...errorRefs([400, 401, 403, 404, 405, 409, 412, 413, 415, 422, 428, 429, 503]),
      },
    };
  },
  softDelete: (site) => ({
    operationId: `delete_${site.resource.name}`,
    summary: `Delete ${oneOf(site.resource.name)}`,
    description: 'A soft delete: the record leaves lists and reads ($deleted=true still shows it).',
    parameters: [IF_MATCH],
    responses: {
      '204': { description: 'Deleted: the record leaves lists and reads.', headers: headers([], true) },
      ...errorRefs([400, 401, 403, 404, 405, 412, 428, 429, 503]),
    },
  }),
};
