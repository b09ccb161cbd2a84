/**
 * Differential property test of the query language: random work orders and random valid list
 * queries, answered by SQLite, by PostgreSQL (with TEST_DATABASE_URL) and by the reference
 * evaluator written from SPEC section 4; all must give the same ids in the same order.
 * FILTER_DIFF_RUNS sets the number of data sets (each asked QUERIES queries); on a failure
 * fast-check prints the seed and path to replay (FC_SEED, FC_PATH).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DATABASES, M, startHarness, type Harness } from '../support/harness.ts';
import { make, SERVICE_REQUEST } from '../support/fixtures.ts';
import { evaluate, type ReferenceResource, type Row } from '../support/reference-evaluator.ts';
import { insertRecords, workOrder } from '../support/rows.ts';

const RUNS = Number(process.env.FILTER_DIFF_RUNS ?? 40);
const QUERIES = 8;
const MAX_RECORDS = 30;
const SR_BASE = 1000;

const WORK_ORDERS: ReferenceResource = {
  fields: {
    id: 'integer',
    created: 'date',
    updated: 'timestamp',
    deleted: 'boolean',
    department_id: 'integer',
    work_order_type_id: 'integer',
    work_order_type_group_id: 'integer',
    priority: 'integer',
    status: 'string',
    description: 'string',
    service_request_id: 'integer',
  },
  filterable: [
    'id',
    'created',
    'department_id',
    'work_order_type_id',
    'work_order_type_group_id',
    'priority',
    'status',
    'service_request_id',
  ],
};

// Strings that tell the databases apart if anything is off: case, non-ASCII case, wildcards and
// escapes as data, and code points whose UTF-16 order differs from their code point order.
const TRICKY = [
  'open',
  'Open',
  'OPEN',
  'closed',
  'a%b',
  'a_b',
  'a\\b',
  '50%',
  '_',
  '%',
  '\\',
  'école',
  'École',
  'ÉCOLE',
  'straße',
  'STRASSE',
  '😀',
  '\uE000',
  'a:b',
  'a+b',
  'a b',
  '[a]',
  '*',
  '?',
  ' ',
  '',
];
const UNITS = ['a', 'A', 'b', 'B', 'é', 'É', '%', '_', '\\', ':', ' ', '*', '[', '😀', '\uE000'];
const stringArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 6 }) },
);
const DATES = ['2023-01-10', '2023-02-28', '2024-02-29', '2024-03-01', '2024-12-31', '0001-01-01'];

interface GenRecord {
  department_id: number;
  work_order_type_id: number;
  work_order_type_group_id: number;
  priority: number | null;
  status: string;
  description: string | null;
  /** Index of the service request (0, 1) or null. */
  sr: number | null;
  created: string;
  deleted: boolean;
}

const recordArb: fc.Arbitrary<GenRecord> = fc.record({
  department_id: fc.integer({ min: 1, max: 4 }),
  work_order_type_id: fc.integer({ min: 1, max: 3 }),
  work_order_type_group_id: fc.integer({ min: -1, max: 2 }),
  priority: fc.option(fc.integer({ min: -1, max: 5 }), { freq: 4 }),
  status: stringArb,
  description: fc.option(stringArb, { freq: 3 }),
  sr: fc.option(fc.integer({ min: 0, max: 1 }), { freq: 2 }),
  created: fc.constantFrom(...DATES),
  deleted: fc.boolean(),
});

/**
 * A filter value: text; a record's id or a service request's, resolved per database; or text
 * derived from a record's status (so patterns and comparisons often hit data).
 */
type GenValue = { text: string } | { record: number } | { sr: number } | { status: number; shape: number };

/** Shapes of a value derived from a status: as it is, case-changed, a prefix or suffix pattern, one character wild. */
const SHAPES = 7;
function shapeStatus(status: string, shape: number, op: string | undefined): string {
  const pattern = op === 'like' || op === 'ilike';
  const lit = pattern ? status.replace(/[\\%_]/g, '\\$&') : status;
  const chars = [...status];
  switch (shape) {
    case 1:
      return lit.toUpperCase();
    case 2:
      return lit.toLowerCase();
    case 3:
      return pattern ? `${[...lit].slice(0, 2).join('').replace(/\\$/, '')}%` : lit;
    case 4:
      return pattern
        ? `%${chars
            .slice(-1)
            .join('')
            .replace(/[\\%_]/g, '\\$&')}`
        : lit;
    case 5:
      return pattern && chars.length > 0 ? chars.map((c, i) => (i === 0 ? '_' : c.replace(/[\\%_]/g, '\\$&'))).join('') : lit;
    case 6:
      return pattern ? `%${lit}%` : lit;
    default:
      return lit;
  }
}
interface GenParam {
  field: string;
  /** undefined: basic mode. */
  op: string | undefined;
  value: GenValue;
  /** The value used when the operator is `null`. */
  nullText: string;
}

const intText = (min: number, max: number) => fc.integer({ min, max }).map((n) => ({ text: String(n) }));
const patternArb = fc
  .array(
    fc.oneof(
      fc.constantFrom('%', '_', '\\%', '\\_', '\\\\', '\\a', '\\O', 'o', 'O', 'a', 'é', 'É', 'b', ':', ' ', '*', '[', '😀', '\uE000'),
      fc.constantFrom(...TRICKY.filter((s) => s !== '')).map((s) => s.replace(/[\\%_]/g, '\\$&')),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => ({ text: parts.join('') }));

const nullTextArb = fc.constantFrom('', 'true', 'false');
const INTEGER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'null'];
const STRING_OPS = [...INTEGER_OPS, 'like', 'ilike'];

const paramArb: fc.Arbitrary<GenParam> = fc.oneof(
  ...(
    [
      ['department_id', intText(0, 5)],
      ['work_order_type_id', intText(0, 4)],
      ['work_order_type_group_id', intText(-2, 3)],
      ['priority', intText(-2, 6)],
      ['id', fc.integer({ min: -1, max: MAX_RECORDS }).map((record) => ({ record }))],
      [
        'service_request_id',
        fc.oneof(
          fc.integer({ min: 0, max: 1 }).map((sr) => ({ sr })),
          intText(-1, 0),
        ),
      ],
      ['created', fc.oneof(fc.constantFrom(...DATES), fc.constantFrom('2023-06-30', '2024-02-28', '9999-12-31')).map((text) => ({ text }))],
    ] as const
  ).map(([field, value]) => ({
    weight: 1,
    arbitrary: fc.record({
      field: fc.constant(field),
      op: fc.constantFrom(undefined, ...INTEGER_OPS),
      value: value as fc.Arbitrary<GenValue>,
      nullText: nullTextArb,
    }),
  })),
  {
    weight: 7,
    arbitrary: fc.record({
      field: fc.constant('status'),
      op: fc.constantFrom(undefined, 'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'null', 'like', 'like', 'ilike', 'ilike', 'ilike'),
      value: fc.oneof(
        stringArb.filter((s) => s !== '').map((text): GenValue => ({ text })),
        patternArb,
        { weight: 3, arbitrary: fc.record({ status: fc.nat(MAX_RECORDS), shape: fc.nat(SHAPES - 1) }) },
      ),
      nullText: nullTextArb,
    }),
  },
);

interface GenQuery {
  params: GenParam[];
  order: { field: string; form: number } | null;
  deleted: string | null;
  /** A child list of service request 0 instead of the collection. */
  child: boolean;
  /** Spaces sent as + (else %20). */
  plus: boolean;
}

const queryArb: fc.Arbitrary<GenQuery> = fc.record({
  params: fc.array(paramArb, { maxLength: 5 }),
  order: fc.option(fc.record({ field: fc.constantFrom(...Object.keys(WORK_ORDERS.fields)), form: fc.integer({ min: 0, max: 4 }) }), {
    freq: 2,
  }),
  deleted: fc.option(fc.constantFrom('true', 'false'), { freq: 2 }),
  child: fc.boolean(),
  plus: fc.boolean(),
});

/** Makes a random query valid: like patterns need a string value, range and null operators once per field. */
function validParams(q: GenQuery, records: readonly GenRecord[]): GenParam[] {
  const once = new Set<string>();
  return q.params.flatMap((p) => {
    let value = p.value;
    if ('status' in value) {
      const text = records.length ? shapeStatus(records[value.status % records.length]!.status, value.shape, p.op) : 'open';
      value = { text: text === '' ? 'x' : text };
    }
    if (p.op === 'null') value = { text: p.nullText };
    if ((p.op === 'like' || p.op === 'ilike') && 'text' in value && /(^|[^\\])(\\\\)*\\$/.test(value.text))
      value = { text: value.text + '\\' };
    if (p.op && ['gt', 'gte', 'lt', 'lte', 'null'].includes(p.op)) {
      if (once.has(`${p.field}:${p.op}`)) return [];
      once.add(`${p.field}:${p.op}`);
    }
    return [{ ...p, value }];
  });
}

interface Db {
  h: Harness;
  stop: () => Promise<void>;
  /** Service request ids, by index. */
  srs: number[];
}

const dbs: Db[] = [];
beforeAll(async () => {
  for (const name of DATABASES) {
    const started = await startHarness(name, { env: { RATE_LIMIT_MAX: '1000000000' } });
    const h = started.harness;
    const srs = [(await make(h, 'service_requests', SERVICE_REQUEST)).id, (await make(h, 'service_requests', SERVICE_REQUEST)).id];
    dbs.push({ h, stop: () => started.stop(), srs });
  }
});
afterAll(async () => {
  for (const d of dbs) await d.stop();
});

/** The query's parameters as the server will decode them, and as sent. */
function render(q: GenQuery, params: GenParam[], records: number, ids: number[], srs: number[]) {
  const id = (k: number) => (records === 0 ? 1 : k < 0 ? ids[0]! - 1 : k >= records ? ids[records - 1]! + 1 : ids[k]!);
  const pairs: [string, string][] = params.map((p) => [
    p.op === undefined ? p.field : `${p.field}:${p.op}`,
    'text' in p.value ? p.value.text : 'record' in p.value ? String(id(p.value.record)) : 'sr' in p.value ? String(srs[p.value.sr]) : '',
  ]);
  if (q.order) {
    const f = q.order.field;
    pairs.push(['$orderBy', [f, `${f}:asc`, `${f}:desc`, `${f} asc`, `${f} desc`][q.order.form]!]);
  }
  if (q.deleted !== null) pairs.push(['$deleted', q.deleted]);
  pairs.push(['$limit', '50']);
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, q.plus ? '+' : '%20');
  const sent = pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return { pairs, sent };
}

it(`SQLite, PostgreSQL and the reference evaluator agree on ${RUNS} random data sets x ${QUERIES} random queries`, async () => {
  let compared = 0;
  let nonEmpty = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(recordArb, { minLength: 1, maxLength: MAX_RECORDS, size: 'max' }),
      fc.array(queryArb, { minLength: QUERIES, maxLength: QUERIES }),
      async (records, queries) => {
        const idsOf: number[][] = [];
        for (const d of dbs) {
          const tenant = (await d.h.service.tenants.get('demo.main'))!;
          await tenant.db.deleteFrom('work_orders').execute();
          idsOf.push(
            await insertRecords(
              d.h,
              'work_orders',
              records.map(({ sr, ...r }) => workOrder({ ...r, service_request_id: sr === null ? null : d.srs[sr]! })),
            ),
          );
        }
        // The reference's ids are indexes (every database's ids ascend in the same order), and its
        // service requests SR_BASE + index, apart from the literal values queries send.
        const rows: Row[] = records.map(({ sr, ...r }, i) => ({
          ...r,
          id: i,
          service_request_id: sr === null ? null : SR_BASE + sr,
          updated: 'same',
        }));
        for (const q of queries) {
          const params = validParams(q, records);
          const answers: { db: string; ids: number[]; total: number; sent: string }[] = [];
          let expected: ReturnType<typeof evaluate> | undefined;
          for (const [i, d] of dbs.entries()) {
            const ids = idsOf[i]!;
            const { pairs, sent } = render(q, params, records.length, ids, d.srs);
            if (i === 0) {
              // the reference sees the first database's query with ids and service requests mapped back to indexes
              const back = new Map(ids.map((id, k) => [String(id), String(k)]));
              const refPairs = pairs.map(([k, v], j): [string, string] => {
                const p = params[j];
                if (p && 'record' in p.value)
                  return [k, String(p.value.record < 0 ? -1 : p.value.record >= records.length ? records.length : Number(back.get(v)))];
                if (p && 'sr' in p.value) return [k, String(SR_BASE + p.value.sr)];
                return [k, v];
              });
              expected = evaluate(WORK_ORDERS, rows, refPairs, q.child ? { field: 'service_request_id', id: SR_BASE } : undefined);
            }
            const path = q.child ? `${M}/service_requests/${d.srs[0]}/work_orders` : `${M}/work_orders`;
            const r = await d.h.get(`${path}?${sent}`);
            expect(r.status, `${d.h.db}: ${sent}\n${r.text}`).toBe(200);
            const index = new Map(ids.map((id, k) => [id, k]));
            answers.push({
              db: d.h.db,
              ids: r.body.map((w: { id: number }) => index.get(w.id)),
              total: Number(r.headers.get('x-total')),
              sent,
            });
          }
          expect(expected!.ok, `the reference refused ${answers[0]!.sent}`).toBe(true);
          const want = expected as { ids: number[]; total: number };
          for (const a of answers) {
            expect({ db: a.db, query: a.sent, ids: a.ids, total: a.total }).toEqual({
              db: a.db,
              query: a.sent,
              ids: want.ids,
              total: want.total,
            });
          }
          compared++;
          if (want.ids.length > 0) nonEmpty++;
        }
      },
    ),
    {
      numRuns: RUNS,
      ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
    },
  );
  // the random queries must find records often enough to mean something
  expect(compared).toBe(RUNS * QUERIES);
  console.log(`filter-differential: ${compared} queries per database, ${nonEmpty} with matches`);
  expect(nonEmpty).toBeGreaterThan(compared / 5);
}, 240_000);
