import { expect, it } from 'vitest';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { DATE, expectProblem, make, RFC3339_UTC, SERVICE_REQUEST, utcDate, WORK_ORDER } from '../support/fixtures.ts';

const SYSTEM = ['id', 'created', 'updated', 'deleted'];

interface Case {
  name: string;
  /** Fields the resource defines, beyond the system fields. */
  fields: string[];
  /** A POST body with only the required fields (parents made first). */
  minimal: (h: Harness) => Promise<Record<string, unknown>>;
  /** What the optional fields hold when left out. */
  defaults: Record<string, unknown>;
  /** A PATCH body naming one field, and a second field PATCH must leave alone. */
  change: Record<string, unknown>;
  untouched: string;
  /** Optional fields set to non-defaults, that PUT without them resets. */
  optionals: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    name: 'work_orders',
    fields: ['department_id', 'work_order_type_id', 'work_order_type_group_id', 'priority', 'status', 'description', 'service_request_id'],
    minimal: async () => ({ ...WORK_ORDER }),
    defaults: { priority: null, status: 'open', description: null, service_request_id: null },
    change: { priority: 5 },
    untouched: 'department_id',
    optionals: { priority: 2, status: 'in_progress', description: 'filter' },
  },
  {
    name: 'service_requests',
    fields: ['description', 'status', 'department_id'],
    minimal: async () => ({ ...SERVICE_REQUEST }),
    defaults: { status: 'new', department_id: null },
    change: { status: 'triaged' },
    untouched: 'description',
    optionals: { status: 'closed', department_id: 7 },
  },
  {
    name: 'notes',
    fields: ['work_order_id', 'note'],
    minimal: async (h) => ({ work_order_id: (await make(h, 'work_orders', WORK_ORDER)).id, note: 'checked' }),
    defaults: {},
    change: { note: 'checked again' },
    untouched: 'work_order_id',
    optionals: {},
  },
];

describeEachDatabase('CRUD on every resource', (h) => {
  for (const c of CASES) {
    const base = `${M}/${c.name}`;

    it(`${c.name}: POST answers 201 with Location, every field present, system fields set`, async () => {
      const body = await c.minimal(h());
      const before = utcDate();
      const startedAt = Date.now();
      const r = await h().post(base, body);
      const endedAt = Date.now();
      expect(r.status, r.text).toBe(201);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(r.body).sort()).toEqual([...SYSTEM, ...c.fields].sort());
      expect(r.body).toMatchObject({ ...body, ...c.defaults, deleted: false });
      expect(Number.isSafeInteger(r.body.id) && r.body.id > 0).toBe(true);
      expect(r.headers.get('location')).toBe(`${base}/${r.body.id}`);
      expect(r.body.created).toMatch(DATE);
      expect([before, utcDate()]).toContain(r.body.created);
      expect(r.body.updated).toMatch(RFC3339_UTC);
      const updatedAt = Date.parse(r.body.updated);
      expect(updatedAt).toBeGreaterThanOrEqual(startedAt - 1);
      expect(updatedAt).toBeLessThanOrEqual(endedAt + 1);
      const read = await h().get(r.headers.get('location')!);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(r.body);
    });

    it(`${c.name}: PATCH changes only the fields it names`, async () => {
      const made = await make(h(), base, { ...(await c.minimal(h())), ...c.optionals });
      const r = await h().patch(`${base}/${made.id}`, c.change);
      expect(r.status, r.text).toBe(200);
      const { updated: _u1, ...rest } = r.body;
      const { updated: _u2, ...before } = made;
      expect(rest).toEqual({ ...before, ...c.change });
      expect(r.body[c.untouched]).toEqual(made[c.untouched]);
      expect((await h().get(`${base}/${made.id}`)).body).toEqual(r.body);
    });

    it(`${c.name}: PUT resets every missing optional field to its default`, async () => {
      const minimal = await c.minimal(h());
      const made = await make(h(), base, { ...minimal, ...c.optionals });
      expect(made).toMatchObject(c.optionals);
      const r = await h().put(`${base}/${made.id}`, minimal);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ ...minimal, ...c.defaults, id: made.id, created: made.created, deleted: false });
      expect((await h().get(`${base}/${made.id}`)).body).toEqual(r.body);
    });

    it(`${c.name}: a record fetched with GET can be PUT back unchanged`, async () => {
      const made = await make(h(), base, { ...(await c.minimal(h())), ...c.optionals });
      const got = (await h().get(`${base}/${made.id}`)).body;
      const r = await h().put(`${base}/${made.id}`, got);
      expect(r.status, r.text).toBe(200);
      const { updated: _a, ...after } = r.body;
      const { updated: _b, ...before } = got;
      expect(after).toEqual(before);
    });

    it(`${c.name}: DELETE is soft: 204, then 404, gone from lists, visible with $deleted=true, a second DELETE 404`, async () => {
      const made = await make(h(), base, await c.minimal(h()));
      const del = await h().del(`${base}/${made.id}`);
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expectProblem(await h().get(`${base}/${made.id}`), 404);
      const list = await h().get(`${base}?id=${made.id}`);
      expect(list.status, list.text).toBe(200);
      expect(list.body).toEqual([]);
      const shown = await h().get(`${base}/${made.id}?$deleted=true`);
      expect(shown.status, shown.text).toBe(200);
      const { updated: _a, ...after } = shown.body;
      const { updated: _b, ...before } = made;
      expect(after).toEqual({ ...before, deleted: true });
      expect(Date.parse(shown.body.updated)).toBeGreaterThan(Date.parse(made.updated));
      expect((await h().get(`${base}/${made.id}?$deleted=false`)).status).toBe(404);
      expectProblem(await h().del(`${base}/${made.id}`), 404);
      expectProblem(await h().patch(`${base}/${made.id}`, c.change), 404);
      expectProblem(await h().put(`${base}/${made.id}`, await c.minimal(h())), 404);
    });

    it(`${c.name}: updated changes on every write, however fast the writes come`, async () => {
      const made = await make(h(), base, await c.minimal(h()));
      const stamps = [made.updated as string];
      for (let i = 0; i < 5; i++) {
        const p = await h().patch(`${base}/${made.id}`, c.change);
        expect(p.status, p.text).toBe(200);
        stamps.push(p.body.updated);
        const put = await h().put(`${base}/${made.id}`, (await h().get(`${base}/${made.id}`)).body);
        expect(put.status, put.text).toBe(200);
        stamps.push(put.body.updated);
      }
      expect((await h().del(`${base}/${made.id}`)).status).toBe(204);
      stamps.push((await h().get(`${base}/${made.id}?$deleted=true`)).body.updated);
      for (const s of stamps) expect(s).toMatch(RFC3339_UTC);
      for (let i = 1; i < stamps.length; i++) expect(Date.parse(stamps[i]!), stamps.join(' ')).toBeGreaterThan(Date.parse(stamps[i - 1]!));
    });
  }

  it('lists are bare arrays with X-Total and plain field=value filters', async () => {
    const a = await make(h(), 'work_orders', { ...WORK_ORDER, department_id: 9001, priority: 1 });
    const b = await make(h(), 'work_orders', { ...WORK_ORDER, department_id: 9001 });
    await make(h(), 'work_orders', { ...WORK_ORDER, department_id: 9002 });
    const r = await h().get(`${M}/work_orders?department_id=9001`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-total')).toBe('2');
    expect(r.body).toEqual([a, b]);
    const one = await h().get(`${M}/work_orders?department_id=9001&priority=1`);
    expect(one.body).toEqual([a]);
    expect(one.headers.get('x-total')).toBe('1');
    const none = await h().get(`${M}/work_orders?department_id=9003`);
    expect(none.body).toEqual([]);
    expect(none.headers.get('x-total')).toBe('0');
  });

  it('a list page holds 10 records by default while X-Total counts them all', async () => {
    for (let i = 0; i < 12; i++) await make(h(), 'service_requests', { description: `sr ${i}`, department_id: 4242 });
    const r = await h().get(`${M}/service_requests?department_id=4242`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toHaveLength(10);
    expect(r.headers.get('x-total')).toBe('12');
  });

  it('ids are assigned by the server, one per record', async () => {
    const ids = new Set<number>();
    for (let i = 0; i < 3; i++) ids.add((await make(h(), 'service_requests', SERVICE_REQUEST)).id);
    expect(ids.size).toBe(3);
  });
});
