import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, expect, it } from 'vitest';
import { allowHeader } from '../../engine/http/route-table.ts';
import { OPERATORS, operatorsFor } from '../../engine/query/operators.ts';
import { loadResources } from '../../server/load-resources.ts';
import { expectProblem, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { DEFINE_URL, resourcesCopy } from '../support/resources-dir.ts';

type Json = Record<string, any>;

const documentOf = async (h: Harness): Promise<Json> => {
  const r = await h.request('GET', `${BASE}/openapi.json`, { token: null });
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  return r.body;
};

/** A value a declared query parameter takes, read from its schema. */
function exampleOf(schema: Json): string {
  const one = schema.type === 'array' ? schema.items : schema;
  if (one.enum) return one.enum.at(-1);
  if (one.type === 'integer') return '1';
  if (one.type === 'boolean') return 'true';
  if (one.format === 'date') return '2024-01-31';
  if (one.format === 'date-time') return '2024-01-31T08:00:00Z';
  return 'x';
}

const listOf = (doc: Json, path: string) => doc.paths[path].get;
const queryNames = (op: Json) => (op.parameters as Json[]).filter((p) => p.in === 'query').map((p) => p.name as string);

describeEachDatabase('GET {base}/openapi.json', (h) => {
  it('is served without a token and is a valid OpenAPI 3.1 document', async () => {
    const doc = await documentOf(h());
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await validate(structuredClone(doc) as any);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('has every collection, record and child path, each with the methods the route table allows', async () => {
    const doc = await documentOf(h());
    const kinds: [string, 'collection' | 'record' | 'child' | 'childRecord'][] = [
      ...['work_orders', 'notes', 'service_requests'].flatMap((c): [string, 'collection' | 'record'][] => [
        [`${M}/${c}`, 'collection'],
        [`${M}/${c}/{id}`, 'record'],
      ]),
      [`${M}/work_orders/{id}/notes`, 'child'],
      [`${M}/service_requests/{id}/work_orders`, 'child'],
      [`${M}/work_orders/{id}/notes/{child_id}`, 'childRecord'],
      [`${M}/service_requests/{id}/work_orders/{child_id}`, 'childRecord'],
    ];
    // Attached files' paths are their own (test/files/files-openapi.test.ts).
    const maintenance = Object.keys(doc.paths)
      .filter((p) => p.startsWith(M) && !p.includes('/attached_files'))
      .sort();
    expect(maintenance).toEqual(kinds.map(([p]) => p).sort());
    for (const [path, kind] of kinds) {
      const methods = Object.keys(doc.paths[path])
        .filter((k) => k !== 'parameters')
        .map((m) => m.toUpperCase());
      expect([...methods, 'HEAD'].sort(), path).toEqual(allowHeader(kind).split(', ').sort());
    }
    expect(doc.paths[`${BASE}/authenticate`].post.security).toEqual([]);
    expect(doc.paths[`${BASE}/authenticate`].post.requestBody.content['application/json'].schema.required.sort()).toEqual([
      'api_key',
      'client_db',
      'username',
    ]);
    for (const p of ['/healthz', '/readyz', '/metrics', `${BASE}/openapi.json`, `${BASE}/docs`])
      expect(doc.paths[p].get.security, p).toEqual([]);
  });

  it('declares every filter with each operator its field allows, and the $ parameters', async () => {
    const doc = await documentOf(h());
    const wo = h().service.engine.registry.get('work_orders')!;
    const expected = [
      ...wo.filterable.flatMap((f) => [
        f,
        ...operatorsFor(wo.fields[f]!.kind)
          .filter((op) => op !== 'null' || wo.fields[f]!.nullable)
          .map((op) => `${f}:${op}`),
      ]),
      '$deleted',
      '$orderBy',
      '$limit',
      '$page',
      '$cursor',
      '$fields',
    ];
    expect(queryNames(listOf(doc, `${M}/work_orders`)).sort()).toEqual([...expected, '$linked'].sort());
    expect(queryNames(listOf(doc, `${M}/work_orders`))).toContain('department_id:gt');
    expect(queryNames(listOf(doc, `${M}/work_orders`))).toContain('status:ilike');
    expect(queryNames(listOf(doc, `${M}/work_orders`))).not.toContain('priority:like');
    expect(queryNames(listOf(doc, `${M}/service_requests/{id}/work_orders`)).sort()).toEqual([...expected, '$linked'].sort());
    expect(queryNames(doc.paths[`${M}/work_orders/{id}`].get)).toEqual(['$deleted', '$fields', '$linked']);
    expect(listOf(doc, `${M}/work_orders`).parameters.find((p: Json) => p.name === '$linked').schema.items.enum).toEqual([
      'Notes',
      'Files',
    ]);
  });

  it('lists the $ parameters first, and :null only for fields that can be null', async () => {
    const doc = await documentOf(h());
    for (const path of [`${M}/work_orders`, `${M}/notes`, `${M}/work_orders/{id}/notes`]) {
      expect(queryNames(listOf(doc, path)).slice(0, 5), path).toEqual(['$deleted', '$orderBy', '$limit', '$page', '$cursor']);
    }
    const names = queryNames(listOf(doc, `${M}/work_orders`));
    expect(names).toContain('priority:null');
    expect(names).toContain('service_request_id:null');
    for (const notNull of ['id:null', 'created:null', 'status:null', 'department_id:null']) expect(names).not.toContain(notNull);
    expect(queryNames(listOf(doc, `${M}/notes`)).filter((n) => n.endsWith(':null'))).toEqual([]);
  });

  it('says what each operation does in plain English', async () => {
    const doc = await documentOf(h());
    const summary = (path: string, method: string) => doc.paths[`${M}${path}`][method].summary;
    expect(summary('/work_orders', 'get')).toBe('List work orders');
    expect(summary('/work_orders', 'post')).toBe('Create a work order');
    expect(summary('/notes', 'post')).toBe('Create a note');
    expect(summary('/service_requests/{id}', 'get')).toBe('Read a service request');
    expect(summary('/work_orders/{id}', 'put')).toBe('Replace a work order');
    expect(summary('/work_orders/{id}', 'patch')).toBe('Change some fields of a work order');
    expect(summary('/notes/{id}', 'delete')).toBe('Delete a note');
    expect(summary('/work_orders/{id}/notes', 'get')).toBe('List the notes of a work order');
    expect(summary('/work_orders/{id}/notes', 'post')).toBe('Create a note under a work order');
    expect(summary('/service_requests/{id}/work_orders', 'get')).toBe('List the work orders of a service request');
    for (const item of Object.values(doc.paths) as Json[])
      for (const op of Object.values(item) as Json[]) if (op.summary) expect(op.summary).not.toMatch(/_|\brecord\b/);
  });

  it('shows every <placeholder> in its descriptions as code, so Markdown keeps it', async () => {
    const doc = await documentOf(h());
    const descriptions: string[] = [];
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(walk);
      else if (x && typeof x === 'object')
        for (const [k, v] of Object.entries(x)) {
          if (k === 'description' && typeof v === 'string') descriptions.push(v);
          else walk(v);
        }
    };
    walk(doc);
    expect(doc.info.description).toContain('`Authorization: Bearer <token>`');
    expect(descriptions.length).toBeGreaterThan(50);
    expect(descriptions.filter((d) => /<[A-Za-z]/.test(d.replace(/`[^`]*`/g, '')))).toEqual([]);
  });

  it('has a request and a response example for each operation, and the server takes the request examples', async () => {
    const doc = await documentOf(h());
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        if (!path.startsWith(M) || method === 'parameters' || path.includes('/attached_files')) continue;
        if (op.requestBody) expect(op.requestBody.content['application/json'].example, `${method} ${path}`).toBeDefined();
        const ok = op.responses['200'] ?? op.responses['201'];
        if (ok) expect(ok.content['application/json'].example, `${method} ${path}`).toBeDefined();
        else expect(Object.keys(op.responses)).toContain('204');
      }
    const example = (path: string, method: string) => doc.paths[`${M}${path}`][method];
    const requestOf = (path: string, method: string) => example(path, method).requestBody.content['application/json'].example;
    const responseOf = (path: string, method: string, status: string) =>
      example(path, method).responses[status].content['application/json'].example;
    const SERVER_SET = ['id', 'created', 'updated'];
    const without = (r: Json) => Object.fromEntries(Object.entries(r).filter(([k]) => !SERVER_SET.includes(k)));

    const sr = await h().post(`${M}/service_requests`, requestOf('/service_requests', 'post'));
    expect(sr.status, sr.text).toBe(201);
    expect(without(sr.body)).toEqual(without(responseOf('/service_requests', 'post', '201')));
    const wo = await h().post(`${M}/work_orders`, requestOf('/work_orders', 'post'));
    expect(wo.status, wo.text).toBe(201);
    expect(without(wo.body)).toEqual(without(responseOf('/work_orders', 'post', '201')));
    expect(Object.keys(responseOf('/work_orders/{id}', 'get', '200')).sort()).toEqual(Object.keys(wo.body).sort());
    const child = await h().post(`${M}/work_orders/${wo.body.id}/notes`, requestOf('/work_orders/{id}/notes', 'post'));
    expect(child.status, child.text).toBe(201);
    expect(without(child.body)).toEqual({ ...without(responseOf('/work_orders/{id}/notes', 'post', '201')), work_order_id: wo.body.id });
    const note = await h().post(`${M}/notes`, { ...requestOf('/notes', 'post'), work_order_id: wo.body.id });
    expect(note.status, note.text).toBe(201);
    const patched = await h().patch(`${M}/work_orders/${wo.body.id}`, requestOf('/work_orders/{id}', 'patch'));
    expect(patched.status, patched.text).toBe(200);
    expect(without(patched.body)).toEqual(without(responseOf('/work_orders/{id}', 'patch', '200')));
    const replaced = await h().put(`${M}/work_orders/${wo.body.id}`, requestOf('/work_orders/{id}', 'put'));
    expect(replaced.status, replaced.text).toBe(200);
    expect(without(replaced.body)).toEqual(without(responseOf('/work_orders/{id}', 'put', '200')));
    expect(without(responseOf('/work_orders', 'get', '200')[0])).toEqual(without(wo.body));
  });

  it('every declared list parameter is accepted by the server, and an undeclared operator is not', async () => {
    const doc = await documentOf(h());
    await makeWorkOrder(h());
    const first = await h().get(`${M}/work_orders`);
    for (const [collection, path] of [
      ['work_orders', `${M}/work_orders`],
      ['notes', `${M}/notes`],
      ['service_requests', `${M}/service_requests`],
    ] as const) {
      for (const p of listOf(doc, path).parameters as Json[]) {
        const value =
          p.name === '$cursor'
            ? collection === 'work_orders'
              ? first.headers.get('x-cursor')!
              : null
            : p.name === '$orderBy'
              ? 'id:desc'
              : exampleOf(p.schema);
        if (value === null) continue;
        const r = await h().get(`${path}?${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`);
        expect(r.status, `${p.name}=${value}: ${r.text}`).toBe(200);
      }
    }
    const declared = new Set(queryNames(listOf(doc, `${M}/work_orders`)));
    for (const op of OPERATORS)
      if (!declared.has(`priority:${op}`)) expectProblem(await h().get(`${M}/work_orders?priority:${op}=1`), 400, [`priority:${op}`]);
  });

  it('has record, create, PUT and PATCH schemas that match what the server does', async () => {
    const doc = await documentOf(h());
    const schemas = doc.components.schemas;
    const record = (await makeWorkOrder(h(), { priority: 2 })) as Json;
    expect(Object.keys(schemas['work_orders.record'].properties).sort()).toEqual(Object.keys(record).sort());
    expect(schemas['work_orders.record'].required.sort()).toEqual(Object.keys(record).sort());
    expect(schemas['work_orders.record'].properties.id.readOnly).toBe(true);
    expect(schemas['work_orders.record'].properties.priority.anyOf).toContainEqual({ type: 'null' });
    const create = schemas['work_orders.create'];
    expect(create.required.sort()).toEqual(Object.keys(WORK_ORDER).sort());
    expect(create.properties).not.toHaveProperty('id');
    expect(create.properties.status).toMatchObject({ type: 'string', default: 'open', maxLength: 64 });
    expect(schemas['notes.create'].required.sort()).toEqual(['note', 'work_order_id']);
    expect(schemas['work_orders.patch'].required).toBeUndefined();
    expect(schemas['work_orders.replace'].properties.id).toBeDefined();
    // The required fields are exactly those whose absence is a 422.
    const only = Object.fromEntries(create.required.map((f: string) => [f, 1]));
    expect((await h().post(`${M}/work_orders`, only)).status).toBe(201);
    for (const f of create.required) {
      const { [f]: _left, ...rest } = only;
      expectProblem(await h().post(`${M}/work_orders`, rest), 422, [f]);
    }
    expectProblem(await h().post(`${M}/work_orders`, { ...only, status: 'x'.repeat(create.properties.status.maxLength + 1) }), 422, [
      'status',
    ]);
  });

  it('declares the response headers, problem+json errors and the bearer scheme', async () => {
    const doc = await documentOf(h());
    const resolve = (x: Json) =>
      x.$ref
        ? x.$ref
            .split('/')
            .slice(1)
            .reduce((o: Json, k: string) => o[k], doc)
        : x;
    const list = listOf(doc, `${M}/work_orders`);
    expect(Object.keys(list.responses['200'].headers)).toEqual(
      expect.arrayContaining([
        'X-Cursor',
        'X-Total',
        'Link',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'RateLimit-Policy',
        'RateLimit',
        'X-Request-Id',
      ]),
    );
    expect(Object.keys(doc.paths[`${M}/work_orders`].post.responses['201'].headers)).toContain('Location');
    expect(Object.keys(resolve(list.responses['429']).headers)).toContain('Retry-After');
    expect(Object.keys(resolve(list.responses['405']).headers)).toContain('Allow');
    expect(Object.keys(resolve(list.responses['401']).headers)).toContain('WWW-Authenticate');
    const statuses = new Set<string>();
    for (const item of Object.values(doc.paths) as Json[])
      for (const op of Object.values(item) as Json[])
        for (const [status, r] of Object.entries(op.responses ?? {}))
          if (Number(status) >= 400) {
            statuses.add(status);
            expect(Object.keys(resolve(r as Json).content)).toEqual(['application/problem+json']);
          }
    expect([...statuses].sort()).toEqual([
      '400',
      '401',
      '403',
      '404',
      '405',
      '409',
      '410',
      '412',
      '413',
      '415',
      '416',
      '422',
      '428',
      '429',
      '503',
    ]);
    // A deploy's 503 (definitions-changed) is declared wherever a tenant's tables are reached.
    for (const item of Object.values(doc.paths) as Json[])
      for (const op of Object.values(item) as Json[])
        if (op.responses?.['429']) expect(op.responses['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
    const unavailable = doc.components.responses.ServiceUnavailable;
    expect(Object.keys(unavailable.headers)).toContain('Retry-After');
    expect(unavailable.description).toMatch(/definitions-changed/);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearer: [] }]);
  });

  it('declares ETags, the conditional and Idempotency-Key headers, and 304, 409, 412 and 428 per operation (SPEC 10)', async () => {
    const doc = await documentOf(h());
    const record = doc.paths[`${M}/work_orders/{id}`];
    const collection = doc.paths[`${M}/work_orders`];
    const child = doc.paths[`${M}/work_orders/{id}/notes`];
    const headerParams = (op: Json) => (op.parameters ?? []).filter((p: Json) => p.in === 'header').map((p: Json) => p.name);
    expect(headerParams(record.get)).toEqual(['If-None-Match', 'If-Modified-Since']);
    expect(headerParams(record.patch)).toEqual(['If-Match', 'Idempotency-Key']);
    expect(headerParams(record.put)).toEqual(['If-Match']);
    expect(headerParams(record.delete)).toEqual(['If-Match']);
    expect(headerParams(collection.post)).toEqual(['Idempotency-Key']);
    expect(headerParams(child.post)).toEqual(['Idempotency-Key']);
    for (const [op, status] of [
      [record.get, '200'],
      [record.patch, '200'],
      [record.put, '200'],
      [collection.post, '201'],
      [child.post, '201'],
    ])
      expect(Object.keys(op.responses[status].headers)).toContain('ETag');
    expect(Object.keys(record.get.responses)).toContain('304');
    for (const op of [record.patch, record.put, record.delete])
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['412', '428']));
    for (const op of [record.patch, collection.post, child.post]) expect(Object.keys(op.responses)).toContain('409');
    expect(Object.keys(collection.post.responses['201'].headers)).toContain('Idempotency-Replayed');
  });
});

// A definition file dropped into resources/ shows up in the document with no other edit.
const copy = resourcesCopy({
  'assets.ts': `import { defineResource, integer, string } from '${DEFINE_URL}';
export default defineResource({
  name: 'assets',
  description: 'Equipment on site.',
  fields: {
    name: string({ required: true, filterable: true, maxLength: 200 }),
    work_order_id: integer({ nullable: true, filterable: true, parent: 'work_orders' }),
  },
});
`,
});
afterAll(() => copy.remove());
const withAssets = await loadResources(copy.dir);

describeEachDatabase(
  'the OpenAPI document after a definition file is added',
  (h) => {
    it('has its paths, schemas, filters and tag', async () => {
      const doc = await documentOf(h());
      expect((await validate(structuredClone(doc) as any)).valid).toBe(true);
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([`${M}/assets`, `${M}/assets/{id}`, `${M}/work_orders/{id}/assets`]));
      expect(queryNames(listOf(doc, `${M}/assets`))).toEqual(
        expect.arrayContaining(['name', 'name:like', 'name:ilike', 'work_order_id:gte']),
      );
      expect(doc.components.schemas['assets.create']).toMatchObject({ required: ['name'], properties: { name: { maxLength: 200 } } });
      expect(doc.tags).toContainEqual({ name: 'assets', description: 'Equipment on site.' });
    });
  },
  { resources: withAssets },
);
