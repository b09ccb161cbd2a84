/**
 * The client under Bun: imported by the package's name, against an engine on bun:sqlite served
 * by Bun.serve (an embedded engine takes no token; the client sends the one it is given).
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, expect, it } from 'bun:test';
import { Kysely } from 'kysely';
import { BunSqliteDialect } from 'kysely-bun-sqlite';
import { createEngine, type DbEngine } from 'maintenance-records';
import { createClient, PreconditionFailed } from 'maintenance-records/client';
import { defineResource, integer, string } from 'maintenance-records/define';

const jobs = defineResource({
  name: 'jobs',
  fields: { title: string({ required: true, filterable: true }), priority: integer({ nullable: true, filterable: true }) },
});
let engine: DbEngine;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  engine = createEngine({
    db: new Kysely<any>({ dialect: new BunSqliteDialect({ database: new Database(':memory:') }) }),
    resources: [jobs],
    basePath: '/embedded',
  });
  await engine.migrate();
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: engine.fetch });
});
afterAll(async () => {
  server?.stop(true);
  await engine?.close();
});

it('creates, pages and writes with If-Match on Bun', async () => {
  expect(import.meta.resolve('maintenance-records/client')).toEndWith('/client/index.ts');
  const client = createClient({ baseUrl: `http://127.0.0.1:${server.port}/embedded`, tokens: { accessToken: 'embedded' } });
  const list = client.collection('jobs');
  for (let i = 0; i < 23; i++) await list.create({ title: `job ${i}` });
  const search = await list.search({ $limit: 5 });
  expect([search.total, search.pages]).toEqual([23, 5]);
  const ids: number[] = [];
  for await (const job of search) ids.push(job.id);
  expect(new Set(ids).size).toBe(23);
  const job = await list.get(ids[0]!);
  await list.patch(job, { priority: 1 });
  expect(await list.patch(job, { priority: 2 }).catch((e) => e)).toBeInstanceOf(PreconditionFailed);
});
