import type { Registry } from '../registry.ts';
import { bodySchema, recordSchema } from './json-schema.ts';
import { eventSchema, eventsPath } from './events-path.ts';
import { BATCH_REQUEST_SCHEMA, BATCH_RESPONSE_SCHEMA, batchPath } from './batch-path.ts';
import { collectionPaths } from './paths.ts';
import { filesPaths } from './files-paths.ts';
import { errorResponses, HEADERS, PROBLEM_SCHEMA } from './responses.ts';
import { authenticatePath, refreshPath, servicePaths } from './service-paths.ts';

export interface OpenApiOptions {
  readonly basePath: string;
  readonly title?: string;
  readonly version?: string;
  /** The document's introduction (Markdown, as Swagger UI shows it). */
  readonly description?: string;
  /**
   * The maintenance-records service's own paths (`POST {base}/authenticate`, openapi.json, docs,
   * /healthz, /readyz, /metrics) and its bearer scheme. An embedding host's engine has neither:
   * its auth is the host's own.
   */
  readonly service?: boolean;
}

export const DEFAULT_TITLE = 'Maintenance records';

const SERVICE_DESCRIPTION =
  'Work orders, service requests and notes. Authenticate with `POST /authenticate`, then send `Authorization: Bearer <token>` ' +
  '(**Authorize** above takes the token). Errors are RFC 9457 `application/problem+json`.';
const ENGINE_DESCRIPTION = 'Collections served by maintenance-records. Errors are RFC 9457 `application/problem+json`.';

/** The OpenAPI 3.1 document of everything the registry serves; pure, derived from the definitions alone. */
export function openApiDocument(registry: Registry, options: OpenApiOptions): Record<string, unknown> {
  const resources = [...registry.resources.values()];
  const schemas: Record<string, unknown> = { Problem: PROBLEM_SCHEMA };
  for (const r of resources) {
    schemas[`${r.name}.record`] = recordSchema(r);
    schemas[`${r.name}.create`] = bodySchema(r, 'create');
    schemas[`${r.name}.replace`] = bodySchema(r, 'replace');
    schemas[`${r.name}.patch`] = bodySchema(r, 'patch');
  }
  schemas.event = eventSchema(registry);
  schemas['batch.request'] = BATCH_REQUEST_SCHEMA;
  schemas['batch.response'] = BATCH_RESPONSE_SCHEMA;
  const service = options.service === true;
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? DEFAULT_TITLE,
      version: options.version ?? '1',
      description: options.description ?? (service ? SERVICE_DESCRIPTION : ENGINE_DESCRIPTION),
    },
    tags: [
      ...resources
        .filter((r) => !r.underParents)
        .map((r) => ({ name: r.name, ...(r.definition.description ? { description: r.definition.description } : {}) })),
      { name: 'events', description: 'The change feed: every committed change, in commit order.' },
      { name: 'batch', description: 'Several writes in one transaction: all or nothing.' },
      ...(service ? [{ name: 'authentication' }, { name: 'service' }] : []),
    ],
    ...(service ? { security: [{ bearer: [] }] } : {}),
    paths: {
      ...(service
        ? { [`${options.basePath}/authenticate`]: authenticatePath(), [`${options.basePath}/tokens/refresh`]: refreshPath() }
        : {}),
      ...collectionPaths(registry, options.basePath),
      ...filesPaths(registry, options.basePath),
      [`${options.basePath}/events`]: eventsPath(registry),
      [`${options.basePath}/batch`]: batchPath(registry),
      ...(service ? servicePaths(options.basePath) : {}),
    },
    components: {
      ...(service
        ? {
            securitySchemes: {
              bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access_token of POST /authenticate.' },
            },
          }
        : {}),
      schemas,
      headers: HEADERS,
      responses: errorResponses(),
    },
  };
}
