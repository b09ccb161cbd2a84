/**
 * Pages and reads by id answer records as JSON the database writes (engine/sql/records-json.ts).
 * That text must be the JSON of the record toRecord makes of the row (the engine's definition
 * of a record, used by writes' answers) for every value a client can store: random records of
 * every field kind, created over HTTP, then read every way, on each database.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type DbEngine } from '../../engine/create-engine.ts';
import { boolean, date, defineResource, integer, isExactNumber, isTimestamp, number, string, timestamp } from '../../engine/define.ts';
import { toRecord } from '../../engine/records.ts';
import { recordsJson } from '../../engine/sql/records-json.ts';
import { isStorableText } from '../../engine/storable-text.ts';
import { DATABASES, M } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';

const RUNS = Number(process.env.RECORDS_JSON_RUNS ?? 60);

const kinds = defineResource({
  name: 'kinds',
  fields: {
    n: integer({ nullable: true }),
    s: string({ nullable: true }),
    d: date({ nullable: true }),
    t: timestamp({ nullable: true }),
    b: boolean({ nullable: true }),
    x: number({ nullable: true }),
  },
});

/** More fields than one SQL function call takes arguments for (PostgreSQL's concat: 100). */
const wideField = (i: number) =>
  [
    integer({ nullable: true }),
    string({ nullable: true }),
    date({ nullable: true }),
    timestamp({ nullable: true }),
    boolean({ nullable: true }),
  ][i % 5]!;
const wide = defineResource({
  name: 'wide',
  fields: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, wideField(i)])),
});
const wideValue = (i: number) => [i * 1000, `text "${i}"\n`, '2024-02-29', '2024-02-29T23:59:59.999Z', i % 2 === 0][i % 5];

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const day = fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true });

/** Every form of value a client may send, nulls included. */
const body = fc.record({
  n: fc.option(fc.oneof(fc.maxSafeInteger(), fc.integer(), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER))),
  s: fc.option(
    fc
      .oneof(
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.string({
          unit: fc.constantFrom('"', '\\', '/', '\u0001', '\u001f', '\u007f', '\u2028', '\u2029', '\ufeff', 'é', '😀', '\n', '\t'),
          maxLength: 12,
        }),
        fc.constantFrom('', 'null', 'true', '{"a":1}', '[1]', '0'),
      )
      .filter(isStorableText),
  ),
  d: fc.option(day.map((d) => d.toISOString().slice(0, 10))),
  t: fc.option(
    fc
      .tuple(day, fc.integer({ min: 0, max: 86_399_999 }), fc.integer({ min: -14 * 60, max: 14 * 60 }), fc.integer({ min: 0, max: 3 }))
      .map(([d, ms, offset, digits]) => {
        // A local time with an offset and 0 to 9 fraction digits, as a client may write it.
        const local = new Date(d.getTime() + ms);
        const zone =
          offset === 0 && digits % 2
            ? 'Z'
            : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
        const fraction = ['', `.${pad(local.getUTCMilliseconds(), 3)}`, `.${pad(local.getUTCMilliseconds(), 3)}123456`, '.5'][digits];
        return `${local.toISOString().slice(0, 19)}${fraction}${zone}`;
      })
      .filter(isTimestamp), // not past 9999 in UTC (a 422: field-kinds.test.ts)
  ),
  b: fc.option(fc.boolean()),
  // Numbers of 1 to 15 significant digits over a double's whole range, and the forms JSON writes differently.
  x: fc.option(
    fc
      .oneof(
        fc
          .tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 1, max: 15 }))
          .map(([d, p]) => Number(d.toPrecision(p))),
        fc.integer().map((i) => i / 1000),
        fc.constantFrom(1e-6, 1.5e-7, 1e21, 1e20, 123456789012345, 99999999999999.9),
      )
      .filter((n) => isExactNumber(n) && !Object.is(n, -0)),
  ),
});

interface Target {
  engine: DbEngine;
  close: () => Promise<void>;
}

async function openTarget(name: string): Promise<Target> {
  if (name === 'sqlite') {
    const engine = createEngine({
      db: new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }),
      resources: [kinds, wide],
    });
    await engine.migrate();
    return { engine, close: () => engine.close() };
  }
  const fresh = await freshPostgresDatabase();
  const engine = createEngine({
    db: new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 2) }) }),
    resources: [kinds, wide],
  });
  await engine.migrate();
  return {
    engine,
    close: async () => {
      await engine.close();
      await fresh.drop();
    },
  };
}

const call = (t: Target, method: string, path: string, json?: unknown) =>
  t.engine.fetch(
    new Request(`http://localhost${M}/kinds${path}`, {
      method,
      ...(json === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
    }),
  );

for (const name of DATABASES) {
  describe(`a page's records as the database writes them [${name}]`, () => {
    let t: Target;
    beforeAll(async () => {
      t = await openTarget(name);
    });
    afterAll(async () => t?.close());

    it('are the records a read by id answers, in the order asked, for every storable value', async () => {
      const resource = t.engine.registry.get('kinds')!;
      await fc.assert(
        fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 3 }), async (bodies, missing) => {
          const created: number[] = [];
          for (const b of bodies) {
            const res = await call(t, 'POST', '', b);
            expect(res.status, await res.clone().text()).toBe(201);
            created.push((await res.json()).id);
          }
          // Shuffled, with ids of no record in between (the page leaves them out).
          const ids = [...created.map((id) => -id), ...created, ...Array.from({ length: missing }, (_, i) => 1e9 + i)];
          ids.sort((a, b) => ((a * 7919) % 13) - ((b * 7919) % 13) || a - b);
          const asked = ids.map(Math.abs).filter((id, i, all) => all.indexOf(id) === i);
          // The records as toRecord makes them of the rows, and as reads by id answer them.
          const reads: unknown[] = [];
          for (const id of asked) {
            const row = await t.engine.tenant.db.selectFrom('kinds').selectAll().where('id', '=', id).executeTakeFirst();
            const res = await call(t, 'GET', `/${id}`);
            if (!row) {
              expect(res.status).toBe(404);
              continue;
            }
            const record = toRecord(resource, t.engine.tenant.flavour, row);
            expect(await res.text()).toBe(JSON.stringify(record));
            reads.push(record);
          }
          const json = await recordsJson(t.engine.tenant.db, resource, asked);
          expect(json).toBe(JSON.stringify(reads));
          // A new search's first page (on SQLite written in the snapshot's own statement): the same records, in id order.
          const list = await call(t, 'GET', `?${created.map((id) => `id=${id}`).join('&')}&$limit=50`);
          const byId = [...(reads as { id: number }[])].sort((a, b) => a.id - b.id);
          expect(await list.text()).toBe(JSON.stringify(byId));
          // Nothing was lost on the way in: each field reads back as sent (timestamps normalised).
          for (const [i, b] of bodies.entries()) {
            const r = (reads as Record<string, unknown>[]).find((x) => x.id === created[i])!;
            expect({ ...r, t: r.t }).toMatchObject({ ...b, t: b.t === null ? null : new Date(b.t).toISOString() });
          }
        }),
        { numRuns: RUNS },
      );
    });

    it('holds every field of a collection with many fields, values and nulls', async () => {
      const resource = t.engine.registry.get('wide')!;
      const full = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, wideValue(i)]));
      const halves = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, i % 3 === 0 ? null : wideValue(i)]));
      for (const b of [full, halves, {}]) {
        const made = await t.engine.fetch(
          new Request(`http://localhost${M}/wide`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(b),
          }),
        );
        const text = await made.text();
        expect(made.status, text).toBe(201);
        const id = JSON.parse(text).id;
        const row = await t.engine.tenant.db.selectFrom('wide').selectAll().where('id', '=', id).executeTakeFirst();
        const read = await (await t.engine.fetch(new Request(`http://localhost${M}/wide/${id}`))).text();
        expect(read).toBe(JSON.stringify(toRecord(resource, t.engine.tenant.flavour, row!)));
        expect(read).toBe(text);
        expect(await recordsJson(t.engine.tenant.db, resource, [id])).toBe(`[${read}]`);
      }
    });

    it('is an empty array for no ids, and for ids of no record', async () => {
      const resource = t.engine.registry.get('kinds')!;
      expect(await recordsJson(t.engine.tenant.db, resource, [])).toBe('[]');
      expect(await recordsJson(t.engine.tenant.db, resource, [2e9, 2e9 + 1])).toBe('[]');
    });

    it('answers a list page with the same text', async () => {
      const res = await call(t, 'POST', '', { n: 1, s: 'a "quoted"\nline', d: '2024-02-29', t: '2024-02-29T23:59:59.999+01:00', b: true });
      const createdText = await res.text();
      const id = JSON.parse(createdText).id;
      const list = await call(t, 'GET', `?id:eq=${id}`);
      expect(list.status).toBe(200);
      const read = await (await call(t, 'GET', `/${id}`)).text();
      expect(await list.text()).toBe(`[${read}]`);
      // The answer to the create (toRecord's) is the same text too.
      expect(read).toBe(createdText);
    });
  });
}
