import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineResource, integer, string, type FieldDef } from '../../engine/define.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { DATABASES, M, startHarness, type DatabaseName, type Harness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

const RUNS = Number(process.env.MIGRATE_PROPERTY_RUNS ?? 6);

/** A definition change migrate must take on a table with rows; `pick` chooses among the fields it fits. */
type Change =
  | { op: 'add nullable'; kind: 'string' | 'integer'; filterable: boolean }
  | { op: 'add with default'; kind: 'string' | 'integer'; value: string | number }
  | { op: 'rename'; pick: number }
  | { op: 'make filterable'; pick: number };

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    op: fc.constant('add nullable' as const),
    kind: fc.constantFrom('string' as const, 'integer' as const),
    filterable: fc.boolean(),
  }),
  fc.oneof(
    fc.record({ op: fc.constant('add with default' as const), kind: fc.constant('string' as const), value: fc.string({ maxLength: 8 }) }),
    fc.record({
      op: fc.constant('add with default' as const),
      kind: fc.constant('integer' as const),
      value: fc.integer({ min: -1000, max: 1000 }),
    }),
  ),
  fc.record({ op: fc.constant('rename' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('make filterable' as const), pick: fc.nat() }),
);

/**
 * Applies a change to the work order fields and to the records as the API should now show them.
 * Renames and indexes are chosen among the fields a definition may change so (not the required
 * ones, whose renames the parent link and the composite index of the shipped definition name).
 */
function apply(change: Change, fields: Record<string, FieldDef>, records: Record<string, unknown>[], n: number): string {
  const movable = Object.keys(fields).filter((k) => !fields[k]!.required && fields[k]!.parent === undefined && k !== 'status');
  switch (change.op) {
    case 'add nullable': {
      const name = `f${n}`;
      const options = { nullable: true, filterable: change.filterable } as const;
      fields[name] = change.kind === 'string' ? string(options) : integer(options);
      for (const r of records) r[name] = null;
      return `${name}: ${change.kind} nullable`;
    }
    case 'add with default': {
      const name = `f${n}`;
      fields[name] = (
        change.kind === 'string' ? string({ default: change.value as string }) : integer({ default: change.value as number })
      ) as FieldDef;
      for (const r of records) r[name] = change.value;
      return `${name}: ${change.kind} default ${JSON.stringify(change.value)}`;
    }
    case 'rename': {
      const from = movable[change.pick % movable.length]!;
      const to = `r${n}`;
      const { renamedFrom: _earlier, ...rest } = fields[from]!;
      delete fields[from];
      fields[to] = { ...rest, renamedFrom: from };
      for (const r of records) {
        r[to] = r[from];
        delete r[from];
      }
      return `${from} -> ${to}`;
    }
    case 'make filterable': {
      const name = movable[change.pick % movable.length]!;
      fields[name] = { ...fields[name]!, filterable: true };
      return `${name} filterable`;
    }
  }
}

const definitions = (fields: Record<string, FieldDef>) => [
  defineResource({ ...workOrders, fields: { ...fields } }),
  notes,
  serviceRequests,
];

/** Every record as the API shows it now (the soft-deleted one with $deleted=true), and a search on each filterable field. */
async function expectRecords(h: Harness, fields: Record<string, FieldDef>, records: Record<string, unknown>[], steps: string[]) {
  for (const r of records) {
    const got = await h.get(`${M}/work_orders/${r.id}${r.deleted ? '?$deleted=true' : ''}`);
    expect(got.body, `${steps.join(', ')}: ${got.text}`).toEqual(r);
  }
  const live = records.filter((r) => !r.deleted);
  for (const [name, f] of Object.entries(fields)) {
    if (!f.filterable || live[0]![name] === null || live[0]![name] === '') continue;
    const value = live[0]![name] as string | number;
    const found = await h.get(`${M}/work_orders?${name}=${encodeURIComponent(String(value))}&$limit=100`);
    expect(found.status, found.text).toBe(200);
    expect(
      found.body.map((w: { id: number }) => w.id),
      steps.join(', '),
    ).toEqual(live.filter((r) => r[name] === value).map((r) => r.id));
  }
}

async function run(db: DatabaseName, changes: Change[]) {
  const first = await startHarness(db);
  const place = { dataDir: first.dataDir, databaseUrl: first.databaseUrl };
  try {
    const records: Record<string, unknown>[] = [];
    for (const extra of [
      { description: 'pump', priority: 1 },
      { status: 'closed' },
      { description: '', priority: 3 },
      { description: 'gone' },
    ]) {
      const r = await first.harness.post(`${M}/work_orders`, { ...WORK_ORDER, ...extra });
      expect(r.status, r.text).toBe(201);
      records.push(r.body);
    }
    const gone = records.at(-1)!.id;
    expect((await first.harness.del(`${M}/work_orders/${gone}`)).status).toBe(204);
    records[records.length - 1] = (await first.harness.get(`${M}/work_orders/${gone}?$deleted=true`)).body;
    await first.stop(true);
    const fields: Record<string, FieldDef> = { ...workOrders.fields };
    const steps: string[] = [];
    for (const [n, change] of changes.entries()) {
      steps.push(apply(change, fields, records, n));
      const next = await startHarness(db, { resources: definitions(fields), reuse: place });
      try {
        await expectRecords(next.harness, fields, records, steps);
      } finally {
        await next.stop(true);
      }
    }
  } finally {
    await first.cleanup();
  }
}

for (const db of DATABASES)
  describe(`random sequences of allowed definition changes [${db}]`, () => {
    it(`keep every record's data readable through the API as the definitions say (${RUNS} sequences)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(changeArb, { minLength: 1, maxLength: 4 }), (changes) => run(db, changes)),
        { numRuns: RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) },
      );
    }, 60_000);
  });
