import { compileErrors, validate } from '@readme/openapi-parser';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, defineResource, integer, string, type ApiDocsOptions, type DbEngine } from '../../engine/index.ts';
import { swaggerUiAssets } from '../../server/api-docs.ts';

const tasks = defineResource({
  name: 'tasks',
  fields: { title: string({ required: true, filterable: true }), size: integer({ nullable: true }) },
});
const BASE = '/api/records';

describe('an embedded engine publishing its API', () => {
  let engine: DbEngine | undefined;
  afterEach(async () => engine?.close());
  const open = (apiDocs?: ApiDocsOptions) =>
    (engine = createEngine({
      db: new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }),
      resources: [tasks],
      basePath: BASE,
      ...(apiDocs ? { apiDocs } : {}),
    }));
  const get = (path: string) => engine!.fetch(new Request(`http://host.test${path}`));

  it('gives the OpenAPI document of its own collections, valid, without the service paths', async () => {
    const doc = open().openApi() as Record<string, any>;
    const result = await validate(structuredClone(doc) as any);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    // The engine serves its change feed (SPEC 9), batches (SPEC 10) and /bulk reads (SPEC 14) too.
    expect(Object.keys(doc.paths)).toEqual([
      `${BASE}/maintenance/tasks`,
      `${BASE}/maintenance/tasks/{id}`,
      `${BASE}/bulk/maintenance/tasks`,
      `${BASE}/bulk/maintenance/tasks/{id}`,
      `${BASE}/events`,
      `${BASE}/batch`,
    ]);
    expect(doc.security).toBeUndefined();
    expect(doc.components.securitySchemes).toBeUndefined();
    expect(doc.info.description).not.toContain('/authenticate');
  });

  it('serves nothing but its collections unless asked', async () => {
    open();
    expect((await get(`${BASE}/openapi.json`)).status).toBe(404);
    expect((await get(`${BASE}/docs`)).status).toBe(404);
  });

  it('serves openapi.json, and the docs page with its assets', async () => {
    open({ title: 'Tasks', assets: swaggerUiAssets() });
    await engine!.migrate();
    const served = await get(`${BASE}/openapi.json`);
    expect(served.status).toBe(200);
    const doc = (await served.json()) as Record<string, any>;
    expect(doc).toEqual(engine!.openApi());
    expect(doc.info.title).toBe('Tasks');
    const page = await get(`${BASE}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>Tasks</title>');
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
      expect(html).toContain(`${BASE}/docs/${asset}`);
      expect((await get(`${BASE}/docs/${asset}`)).status, asset).toBe(200);
    }
    expect(await (await get(`${BASE}/docs/init.js`)).text()).toContain(JSON.stringify(`${BASE}/openapi.json`));
    expect((await get(`${BASE}/docs/package.json`)).status).toBe(404);
    expect((await get(`${BASE}/maintenance/tasks`)).status).toBe(200);
  });

  it('serves openapi.json alone without assets, also mounted in a host app', async () => {
    open({});
    const host = new Hono();
    host.get('/', (c) => c.text('host'));
    host.route('/', engine!.app);
    expect((await host.request(`${BASE}/openapi.json`)).status).toBe(200);
    expect((await host.request(`${BASE}/docs`)).status).toBe(404);
    expect((await host.request('/')).status).toBe(200);
  });
});
