import fc from 'fast-check';
import { expect, it } from 'vitest';
import { boolean, date, defineResource, integer, string, timestamp } from '../../engine/define.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { expectProblem } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';

/**
 * Read-only fields sent in a PUT or PATCH (a record read back and sent again): accepted with the
 * record's current values, each other value a 422 naming it, whichever way the write is made
 * (on PostgreSQL the write checks them in its statement, without reading the record first).
 */

// Read-only fields of every kind, whose values only their defaults set: text that JSON escapes.
const UNIT = 'kPa "gauge" \\ / \u0001 \u2028 ∆ 🔧';
const gauges = defineResource({
  name: 'gauges',
  fields: {
    label: string({ required: true }),
    unit: string({ readOnly: true, default: UNIT }),
    serial: integer({ readOnly: true, default: 2 ** 53 - 1 }),
    calibrated_on: date({ readOnly: true, default: '2024-02-29' }),
    calibrated_at: timestamp({ readOnly: true, default: '2024-02-29T23:59:59.999Z' }),
    sealed: boolean({ readOnly: true, default: true }),
    spare: string({ readOnly: true, nullable: true }),
  },
});

const G = `${M}/gauges`;
const READ_ONLY = ['id', 'created', 'updated', 'deleted', 'unit', 'serial', 'calibrated_on', 'calibrated_at', 'sealed', 'spare'] as const;

/** Values close to a current one: the same value as another type, or a near-miss of it. */
function nearMisses(current: unknown): unknown[] {
  const out: unknown[] = [null, '', 0, false, true, [], {}, [current], { value: current }];
  if (typeof current === 'string')
    out.push(
      `${current} `,
      current.toUpperCase(),
      current.slice(0, -1),
      current.replace(/\d(?=\D*$)/, (d) => String((Number(d) + 1) % 10)),
      JSON.stringify(current),
    );
  if (typeof current === 'number') out.push(current + 1, current - 1, String(current), current + 0.5);
  if (typeof current === 'boolean') out.push(!current, String(current), current ? 1 : 0);
  return out.filter((v) => v !== current);
}

describeEachDatabase(
  'read-only fields sent in a write',
  (h) => {
    const make = async () => {
      const r = await h().post(G, { label: 'boiler' });
      expect(r.status, r.text).toBe(201);
      return r.body as Record<string, unknown>;
    };

    it('a record read back and sent again is written; its read-only fields keep their values', async () => {
      const made = await make();
      expect(made).toMatchObject({
        unit: UNIT,
        serial: 2 ** 53 - 1,
        calibrated_on: '2024-02-29',
        calibrated_at: '2024-02-29T23:59:59.999Z',
        sealed: true,
        spare: null,
      });
      const read = (await h().get(`${G}/${made.id}`)).body;
      const put = await h().put(`${G}/${made.id}`, { ...read, label: 'boiler 2' });
      expect(put.status, put.text).toBe(200);
      expect(put.body).toEqual({ ...read, label: 'boiler 2', updated: put.body.updated });
      expect(put.body.updated > read.updated).toBe(true);
      const patched = await h().patch(`${G}/${made.id}`, { ...put.body, label: 'boiler 3' });
      expect(patched.status, patched.text).toBe(200);
      expect((await h().get(`${G}/${made.id}`)).body).toEqual(patched.body);
      const same = await h().put(`${G}/${made.id}`, patched.body); // sent back unchanged
      expect(same.status, same.text).toBe(200);
      // Each write appended its event, with what it changed (SPEC 9: [] for a write that changed none).
      const events = (await h().get(`${BASE}/events?collection=gauges&$limit=1000`)).body as {
        id: number;
        op: string;
        changed: string[];
        record: unknown;
      }[];
      expect(events.filter((e) => e.id === made.id).map((e) => [e.op, e.changed])).toEqual([
        ['create', expect.any(Array)],
        ['update', ['label']],
        ['update', ['label']],
        ['update', []],
      ]);
      expect(events.filter((e) => e.id === made.id).at(-1)!.record).toEqual(same.body);
    });

    it('any read-only value but the current one is 422 naming each such field, and nothing is written', async () => {
      const made = await make();
      const url = `${G}/${made.id}`;
      let current = (await h().get(url)).body as Record<string, unknown>;
      const sent = fc.dictionary(fc.constantFrom(...READ_ONLY), fc.oneof(fc.constant('current' as const), fc.nat(20)), {
        minKeys: 1,
        maxKeys: 4,
      });
      await fc.assert(
        fc.asyncProperty(sent, fc.boolean(), fc.nat(1000), async (picks, whole, label) => {
          const body: Record<string, unknown> = whole ? { ...current } : {};
          const wrong: string[] = [];
          for (const [name, pick] of Object.entries(picks)) {
            if (pick === 'current') body[name] = current[name];
            else {
              const misses = nearMisses(current[name]);
              body[name] = misses[pick % misses.length];
              wrong.push(name);
            }
          }
          body.label = `label ${label}`;
          const r = whole ? await h().put(url, body) : await h().patch(url, body);
          if (wrong.length === 0) {
            expect(r.status, `${JSON.stringify(body)} -> ${r.text}`).toBe(200);
            expect(r.body.label).toBe(body.label);
            current = r.body;
          } else {
            expectProblem(r, 422, wrong);
            expect((await h().get(url)).body).toEqual(current);
          }
        }),
        { numRuns: 60 },
      );
    });

    it('a record changed since it was read: its old updated is 422; deleted since: 404; an old tag: 412', async () => {
      const made = await make();
      const url = `${G}/${made.id}`;
      const first = await h().get(url);
      const moved = await h().patch(url, { label: 'moved' });
      expect(moved.status, moved.text).toBe(200);
      expectProblem(await h().put(url, { ...first.body, label: 'stale' }), 422, ['updated']);
      const stale = await h().request('PUT', url, {
        body: { ...first.body, label: 'stale' },
        headers: { 'if-match': first.headers.get('etag')! },
      });
      expectProblem(stale, 412);
      expect((await h().get(url)).body).toEqual(moved.body);
      expect((await h().del(url)).status).toBe(204);
      expectProblem(await h().put(url, { ...moved.body, label: 'gone' }), 404);
      expectProblem(await h().patch(url, { ...moved.body, label: 'gone' }), 404);
      expectProblem(await h().put(`${G}/987654`, { ...moved.body, id: 987654 }), 404);
    });

    it('read-only fields with other problems of the body: every problem at once', async () => {
      const made = await make();
      const url = `${G}/${made.id}`;
      expectProblem(await h().put(url, { ...made, label: 5, sealed: false }), 422, ['label', 'sealed']);
      expectProblem(await h().patch(url, { unit: `${UNIT} `, colour: 'red' }), 422, ['unit', 'colour']);
      expect((await h().get(url)).body).toEqual(made);
    });
  },
  { resources: [workOrders, notes, serviceRequests, gauges] },
);
