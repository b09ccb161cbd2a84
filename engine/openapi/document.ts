import type { Registry } from '../registry.ts';
import { bodySchema, recordSchema } from './json-schema.ts';
import { collectionPaths } from './paths.ts';
import { errorResponses, HEADERS, PROBLEM_SCHEMA } from './responses.ts';
import { authenticatePath, servicePaths } from './service-paths.ts';

export interface OpenApiOptions {
  readonly basePath: string;
  readonly title?: string;
  readonly version?: string;
}

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
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Maintenance records',
      version: options.version ?? '1',
      description:
        'Work orders, service requests and notes. Authenticate with POST /authenticate, then send Authorization: Bearer <token>. Errors are RFC 9457 problem+json.',
    },
    tags: [
      ...resources.map((r) => ({ name: r.name, ...(r.definition.description ? { description: r.definition.description } : {}) })),
      { name: 'authentication' },
      { name: 'service' },
    ],
    security: [{ bearer: [] }],
    paths: {
      [`${options.basePath}/authenticate`]: authenticatePath(),
      ...collectionPaths(registry, options.basePath),
      ...servicePaths(options.basePath),
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access_token of POST /authenticate.' },
      },
      schemas,
      headers: HEADERS,
      responses: errorResponses(),
    },
  };
}
