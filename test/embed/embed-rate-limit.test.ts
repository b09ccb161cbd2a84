import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { expect, it } from 'vitest';
import { createEngine, defineResource, string } from '../../engine/index.ts';
import { createLimiter } from '../../server/rate-limit/index.ts';

it('an embedded engine takes a rate limiter: headers on every answer, 429 past the limit, nothing done', async () => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  const things = defineResource({ name: 'things', fields: { label: string({ required: true }) } });
  const limiter = await createLimiter({ name: 'embed', max: 2, windowS: 60, store: 'memory' });
  const engine = createEngine({
    db,
    resources: [things],
    basePath: '/api',
    rateLimit: { limiter, key: (_caller, req) => req.headers.get('x-client') ?? 'anonymous' },
  });
  await engine.migrate();
  const post = (client: string) =>
    engine.fetch(
      new Request('http://h/api/maintenance/things', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-client': client },
        body: JSON.stringify({ label: client }),
      }),
    );
  const answers = [await post('a'), await post('a'), await post('a')];
  expect(answers.map((r) => r.status)).toEqual([201, 201, 429]);
  expect(answers.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0']);
  expect(answers[2]!.headers.get('retry-after')).toBe(answers[2]!.headers.get('x-ratelimit-reset'));
  expect((await post('b')).status).toBe(201); // another key has its own window
  const list = await engine.fetch(new Request('http://h/api/maintenance/things?$limit=50', { headers: { 'x-client': 'c' } }));
  expect(((await list.json()) as unknown[]).length).toBe(3); // the refused POST created nothing
  await engine.close();
  await limiter.close();
});
