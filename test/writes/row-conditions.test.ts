/**
 * Each write rule is declared once (engine/writes/rules/) as conditions on the row: a write that
 * reads its record judges them in JavaScript (`holds`), one that does not puts them in its
 * statement (`conditionSql`). The two must agree: random conditions, and the rules' own for
 * random bodies, judged both ways on the same random rows, on each database.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type DbEngine } from '../../engine/create-engine.ts';
import { boolean, date, defineResource, integer, string, timestamp } from '../../engine/define.ts';
import type { Resource } from '../../engine/registry.ts';
import {
  conditionSql,
  conditionValues,
  factsFor,
  holds,
  showsJson,
  type Facts,
  type RowCondition,
  type Scalar,
} from '../../engine/writes/conditions.ts';
import { updateConditions } from '../../engine/writes/rules/index.ts';
import { ifMatchCondition } from '../../engine/writes/rules/if-match.ts';
import { parseCondition } from '../../engine/http/conditional.ts';
import { DATABASES, M } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';

const RUNS = Number(process.env.ROW_CONDITIONS_RUNS ?? 400);
const ROWS = 24;

/** A parent collection: some of its records deleted, so a link may name a live record or not. */
const holders = defineResource({ name: 'holders', fields: { label: string({ nullable: true }) } });
const HOLDERS = 5;
const DELETED_HOLDERS = [2, 4];
/** What the database holds, known from the setup: the JavaScript form's facts, independent of SQL. */
const FACTS: Facts = { live: (table, id) => table === 'holders' && id >= 1 && id <= HOLDERS && !DELETED_HOLDERS.includes(id) };
const holderId = fc.integer({ min: 0, max: HOLDERS + 1 });

const kinds = defineResource({
  name: 'ruled',
  fields: {
    h: integer({ nullable: true, parent: 'holders' }),
    st: string({ default: 'a', states: { a: ['b'], b: ['a', 'c'], c: [] }, enter: { c: { roles: ['boss'], requires: ['n'] } } }),
    n: integer({ nullable: true, frozenIn: { st: ['c'] } }),
    s: string({ nullable: true }),
    b: boolean({ nullable: true }),
    d: date({ nullable: true }),
    t: timestamp({ nullable: true }),
  },
});

const domain = {
  h: fc.option(holderId, { nil: null }),
  st: fc.constantFrom('a', 'b', 'c'),
  n: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null }),
  s: fc.option(fc.constantFrom('', 'x', 'X', 'é', 'a "q"', 'null'), { nil: null }),
  b: fc.option(fc.boolean(), { nil: null }),
  d: fc.option(fc.constantFrom('2024-02-29', '1999-12-31'), { nil: null }),
  t: fc.option(fc.constantFrom('2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00.000Z'), { nil: null }),
};
const FIELDS = Object.keys(domain) as (keyof typeof domain)[];
const SCALAR = ['h', 'st', 'n', 's', 'b'] as const;
const READ_ONLY = ['id', 'created', 'updated', 'deleted'];

/** Any condition on the row, its values drawn from what the rows hold (and a little more). */
const condition: fc.Memo<RowCondition> = fc.memo((depth): fc.Arbitrary<RowCondition> => {
  const field = fc.constantFrom(...SCALAR);
  const valueOf = (f: (typeof SCALAR)[number]) => (domain[f] as fc.Arbitrary<Scalar | null>).filter((v): v is Scalar => v !== null);
  const leaf = fc.oneof(
    field.chain((f) => valueOf(f).map((value): RowCondition => ({ is: 'eq', field: f, value }))),
    field.chain((f) => fc.array(valueOf(f), { maxLength: 3 }).map((values): RowCondition => ({ is: 'in', field: f, values }))),
    fc.constantFrom(...FIELDS).map((f): RowCondition => ({ is: 'set', field: f })),
    fc
      .tuple(fc.subarray(FIELDS, { minLength: 1 }), fc.record(domain))
      .map(([fields, body]): RowCondition => ({ is: 'shows', fields, json: showsJson(body, fields)! })),
    fc.integer({ min: 1, max: 3 }).map((value): RowCondition => ({ is: 'version', value })),
    holderId.map((id): RowCondition => ({ is: 'live', table: 'holders', id })),
  );
  if (depth <= 1) return leaf;
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    condition(depth - 1).map((of): RowCondition => ({ is: 'not', of })),
    fc
      .tuple(fc.constantFrom('all' as const, 'any' as const), fc.array(condition(depth - 1), { maxLength: 3 }))
      .map(([is, of]): RowCondition => ({ is, of })),
  );
});

/** The rules' conditions for a random PATCH body, by a random mover. */
const ruled = (resource: () => Resource) =>
  fc
    .tuple(
      fc.record(
        { ...domain, id: fc.integer({ min: 1, max: ROWS }), created: fc.constant('2000-01-01'), deleted: fc.boolean() },
        { requiredKeys: [] },
      ),
      fc.constantFrom({}, { user: 'u', roles: ['boss'] }, { user: 'u', roles: [] }),
    )
    .map(([sent, mover]): RowCondition => {
      const values = Object.fromEntries(Object.entries(sent).filter(([k]) => !READ_ONLY.includes(k)));
      return { is: 'all', of: updateConditions(resource(), { sent, values, mover }) };
    });

async function open(name: string): Promise<{ engine: DbEngine; close: () => Promise<void> }> {
  if (name === 'sqlite') {
    const engine = createEngine({
      db: new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }),
      resources: [holders, kinds],
    });
    await engine.migrate();
    return { engine, close: () => engine.close() };
  }
  const fresh = await freshPostgresDatabase();
  const engine = createEngine({
    db: new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 2) }) }),
    resources: [holders, kinds],
  });
  await engine.migrate();
  return { engine, close: async () => (await engine.close(), await fresh.drop()) };
}

const send = async (engine: DbEngine, method: string, path: string, body?: unknown, collection = 'ruled') => {
  const res = await engine.fetch(
    new Request(`http://localhost${M}/${collection}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res;
};

for (const name of DATABASES) {
  describe(`row conditions in JavaScript and in SQL [${name}]`, () => {
    let target: Awaited<ReturnType<typeof open>>;
    const rows: { record: Record<string, unknown>; version: number }[] = [];
    beforeAll(async () => {
      target = await open(name);
      const { engine } = target;
      for (let i = 1; i <= HOLDERS; i++) await send(engine, 'POST', '', { label: `${i}` }, 'holders');
      for (const id of DELETED_HOLDERS) await send(engine, 'DELETE', `/${id}`, undefined, 'holders');
      // A row's link names a holder that was live when it was written (a deleted one may stay).
      const bodies = fc.sample(fc.record({ ...domain, st: fc.constant('a'), h: fc.constantFrom(null, 1, 3, 5) }), {
        numRuns: ROWS,
        seed: 7,
      });
      for (const [i, body] of bodies.entries()) {
        const { id } = await (await send(engine, 'POST', '', body)).json();
        // Moved along its states (c needs n), and written again, so versions differ.
        if (i % 3 > 0) await send(engine, 'PATCH', `/${id}`, { st: 'b' });
        if (i % 3 > 1 && body.n !== null) await send(engine, 'PATCH', `/${id}`, { st: 'c' });
        const res = await send(engine, 'GET', `/${id}`);
        rows.push({ record: await res.json(), version: Number(JSON.parse(res.headers.get('etag')!)) });
      }
    }, 120_000);
    afterAll(async () => target?.close());

    const agree = async (c: RowCondition, i: number) => {
      const { engine } = target;
      const resource = engine.registry.get('ruled')!;
      const stored = rows[i % rows.length]!;
      const params = conditionValues(c, resource, engine.tenant.flavour);
      const where = conditionSql(engine.tenant, resource, c, () => params.shift());
      const found = await sql<{ id: number }>`select id from ruled where id = ${stored.record.id} and ${where}`.execute(engine.tenant.db);
      expect(params, 'every value taken, in order').toEqual([]);
      expect(found.rows.length === 1, JSON.stringify({ c, record: stored.record, version: stored.version })).toBe(holds(c, stored, FACTS));
      // The facts a write looks up beside its read are enough to judge it, and judge it alike.
      const looked = await factsFor([c], stored, async (table, id) => FACTS.live(table, id));
      expect(holds(c, stored, looked)).toBe(holds(c, stored, FACTS));
    };

    it('agree on random conditions', async () => {
      await fc.assert(fc.asyncProperty(condition(3), fc.nat(), agree), { numRuns: RUNS });
    }, 300_000);

    it("agree on If-Match's conditions", async () => {
      const tag = fc.oneof(
        fc.integer({ min: 1, max: 4 }).map((v) => `"${v}"`),
        fc.constantFrom('W/"1"', '"x"'),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(tag, { minLength: 1, maxLength: 3 }), fc.nat(), async (tags, i) => {
          const parsed = parseCondition('If-Match', tags.join(', '));
          const c = 'value' in parsed && ifMatchCondition(parsed.value);
          if (c) await agree(c, i);
        }),
        { numRuns: RUNS / 4 },
      );
    }, 300_000);

    it("agree on the rules' conditions for random writes", async () => {
      await fc.assert(
        fc.asyncProperty(
          ruled(() => target.engine.registry.get('ruled')!),
          fc.nat(),
          agree,
        ),
        { numRuns: RUNS },
      );
    }, 300_000);
  });
}
