import { ATTACHED_FILES } from '../files/definition.ts';
import type { Registry } from '../registry.ts';
import { DELETED_PARAMETER, filterParameters, idParameter, reservedParameters } from './parameters.ts';
import { oneOf } from './names.ts';
import { errorRefs, headers } from './responses.ts';

type Json = Record<string, unknown>;

const fileRecord = { $ref: `#/components/schemas/${ATTACHED_FILES}.record` };
const metadata = (description: string, extra: Parameters<typeof headers>[0] = []) => ({
  description,
  headers: headers(['ETag', ...extra], true),
  content: { 'application/json': { schema: fileRecord } },
});
const binary = { '*/*': { schema: { type: 'string', format: 'binary' } } };
const contentHeaders: Json = {
  'Content-Disposition': {
    description: 'inline or attachment (always for HTML, SVG, XML, JavaScript), with the filename (RFC 6266).',
    schema: { type: 'string' },
  },
  'Accept-Ranges': { description: 'bytes', schema: { type: 'string' } },
  ETag: { description: 'A strong tag of the content: its sha256.', schema: { type: 'string' } },
};

/** The attached-files paths of every collection that declares files (SPEC 13). */
export function filesPaths(registry: Registry, basePath: string): Record<string, Json> {
  const files = registry.get(ATTACHED_FILES);
  if (!files) return {};
  const paths: Record<string, Json> = {};
  for (const parent of registry.resources.values()) {
    if (parent.definition.files === undefined) continue;
    const base = `${basePath}${parent.path}/{id}/${ATTACHED_FILES}`;
    const tags = [parent.name];
    const parentId = idParameter('id', parent.name);
    const fid = idParameter('fid', ATTACHED_FILES);
    paths[base] = {
      parameters: [parentId],
      get: {
        tags,
        summary: `List the files of ${oneOf(parent.name)}`,
        parameters: [...filterParameters(files), ...reservedParameters(files)],
        responses: {
          200: {
            description: 'A page of files: a bare JSON array.',
            headers: headers(['X-Cursor', 'X-Total', 'Link'], true),
            content: { 'application/json': { schema: { type: 'array', items: fileRecord } } },
          },
          ...errorRefs([400, 401, 403, 404, 410, 429, 503]),
        },
      },
      post: {
        tags,
        summary: `Upload a file to ${oneOf(parent.name)}`,
        description: 'Streamed; past the size limit 413 at once, nothing kept. The type is sniffed from the leading bytes.',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['data'],
                properties: { data: { type: 'string', format: 'binary' }, description: { type: 'string' } },
              },
            },
          },
        },
        responses: {
          201: metadata('The file was kept.', ['Location', 'Idempotency-Replayed']),
          ...errorRefs([400, 401, 403, 404, 409, 413, 415, 422, 429, 503]),
        },
      },
    };
    paths[`${base}/{fid}`] = {
      parameters: [parentId, fid],
      get: {
        tags,
        summary: "A file's metadata",
        parameters: [DELETED_PARAMETER],
        responses: { 200: metadata('The file.'), ...errorRefs([400, 401, 403, 404, 429, 503]) },
      },
      patch: {
        tags,
        summary: 'Change the filename or description of a file',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', properties: { filename: { type: 'string' }, description: { type: ['string', 'null'] } } },
            },
          },
        },
        responses: { 200: metadata('The file as changed.'), ...errorRefs([400, 401, 403, 404, 412, 413, 415, 422, 428, 429, 503]) },
      },
      delete: {
        tags,
        summary: 'Soft-delete a file',
        responses: { 204: { description: 'Deleted.' }, ...errorRefs([401, 403, 404, 412, 428, 429, 503]) },
      },
    };
    paths[`${base}/{fid}/content`] = {
      parameters: [parentId, fid],
      get: {
        tags,
        summary: "A file's bytes",
        responses: {
          200: { description: 'The bytes as stored.', headers: contentHeaders, content: binary },
          206: { description: 'One range of them (Range).', headers: contentHeaders, content: binary },
          304: { description: 'If-None-Match holds the content ETag.' },
          ...errorRefs([401, 403, 404, 416, 429, 503]),
        },
      },
      put: {
        tags,
        summary: "Replace a file's bytes",
        requestBody: { required: true, content: binary },
        responses: { 200: metadata('The file as changed.'), ...errorRefs([400, 401, 403, 404, 412, 413, 415, 428, 429, 503]) },
      },
    };
  }
  return paths;
}
