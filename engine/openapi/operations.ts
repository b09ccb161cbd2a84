import type { OperationName } from '../http/route-table.ts';
import type { Resource } from '../registry.ts';
import { DELETED_PARAMETER, filterParameters, reservedParameters } from './parameters.ts';
import { errorRefs, headers } from './responses.ts';

type Json = Record<string, unknown>;

/** Where an operation runs: its collection and, on child paths, the parent collection. */
export interface OperationSite {
  readonly resource: Resource;
  readonly parent?: { readonly resource: Resource; readonly field: string } | undefined;
}

const schemaRef = (resource: Resource, part: string) => ({ $ref: `#/components/schemas/${resource.name}.${part}` });
const json = (schema: Json) => ({ 'application/json': { schema } });
const body = (resource: Resource, part: string, description: string) => ({
  required: true,
  description,
  content: json(schemaRef(resource, part)),
});

const listResponse = (resource: Resource) => ({
  description: 'A page of records: a bare JSON array.',
  headers: headers(['X-Cursor', 'X-Total', 'Link'], true),
  content: json({ type: 'array', items: schemaRef(resource, 'record') }),
});
const recordResponse = (resource: Resource, description: string, extra: 'Location'[] = []) => ({
  description,
  headers: headers(extra, true),
  content: json(schemaRef(resource, 'record')),
});

const onParent = (site: OperationSite) => (site.parent ? ` of one ${site.parent.resource.name} record` : '');

/** The OpenAPI operation of each engine operation; a new operation name fails the type check until it is documented. */
export const OPERATION_DOCS: Record<OperationName, (site: OperationSite) => Json> = {
  list: ({ resource }) => ({
    operationId: `list_${resource.name}`,
    summary: `List ${resource.name}`,
    description: 'Makes a cursor (a snapshot of the matching ids) and answers a page of it; with $cursor, answers another page of that snapshot.',
    parameters: [...filterParameters(resource), ...reservedParameters(resource)],
    responses: { '200': listResponse(resource), ...errorRefs([400, 401, 403, 405, 410, 429]) },
  }),
  childList: (site) => ({
    ...OPERATION_DOCS.list(site),
    operationId: `list_${site.resource.name}_of_${site.parent!.resource.name}`,
    summary: `List the ${site.resource.name}${onParent(site)}`,
    responses: { '200': listResponse(site.resource), ...errorRefs([400, 401, 403, 404, 405, 410, 429]) },
  }),
  create: ({ resource }) => ({
    operationId: `create_${resource.name}`,
    summary: `Create a ${resource.name} record`,
    requestBody: body(resource, 'create', 'The new record.'),
    responses: {
      '201': recordResponse(resource, 'Created: the record as stored.', ['Location']),
      ...errorRefs([400, 401, 403, 405, 413, 415, 422, 429]),
    },
  }),
  childCreate: (site) => ({
    ...OPERATION_DOCS.create(site),
    operationId: `create_${site.resource.name}_of_${site.parent!.resource.name}`,
    summary: `Create a ${site.resource.name} record${onParent(site)}`,
    description: `${site.parent!.field} is taken from the path; a different value in the body is 422.`,
    responses: {
      '201': recordResponse(site.resource, 'Created: the record as stored.', ['Location']),
      ...errorRefs([400, 401, 403, 404, 405, 413, 415, 422, 429]),
    },
  }),
  read: ({ resource }) => ({
    operationId: `read_${resource.name}`,
    summary: `Read a ${resource.name} record`,
    parameters: [DELETED_PARAMETER],
    responses: { '200': recordResponse(resource, 'The record.'), ...errorRefs([400, 401, 403, 404, 405, 429]) },
  }),
  replace: ({ resource }) => ({
    operationId: `replace_${resource.name}`,
    summary: `Replace a ${resource.name} record (PUT)`,
    requestBody: body(resource, 'replace', 'The whole record; optional fields left out are reset to their defaults.'),
    responses: { '200': recordResponse(resource, 'The record as stored.'), ...errorRefs([400, 401, 403, 404, 405, 413, 415, 422, 429]) },
  }),
  patch: ({ resource }) => ({
    operationId: `patch_${resource.name}`,
    summary: `Change some fields of a ${resource.name} record (PATCH)`,
    requestBody: body(resource, 'patch', 'The fields to change.'),
    responses: { '200': recordResponse(resource, 'The record as stored.'), ...errorRefs([400, 401, 403, 404, 405, 413, 415, 422, 429]) },
  }),
  softDelete: ({ resource }) => ({
    operationId: `delete_${resource.name}`,
    summary: `Delete a ${resource.name} record (soft delete)`,
    responses: {
      '204': { description: 'Deleted: the record leaves lists and reads.', headers: headers([], true) },
      ...errorRefs([400, 401, 403, 404, 405, 429]),
    },
  }),
};
