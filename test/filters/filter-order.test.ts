import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, M } from '../support/harness.ts';
import { make, SERVICE_REQUEST, WORK_ORDER } from '../support/fixtures.ts';
import { FILTER_SET, insertFilterSet, LIVE, names, qs } from '../support/filter-data.ts';

/** Code-point order (SPEC 4), not JavaScript's UTF-16 order. */
const byCodePoint = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};
const compare = (a: unknown, b: unknown) =>
  typeof a === 'string' ? byCodePoint(a, b as string) : typeof a === 'boolean' ? Number(a) - Number(b) : (a as number) - (b as number);

/** Empty values largest, ties by id ascending. */
function expectedOrder(records: Record<string, any>[], field: string, direction: 'asc' | 'desc'): number[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...records]
    .sort((a, b) => {
      const [x, y] = [a[field], b[field]];
      if (x === null || y === null) return x === y ? a.id - b.id : (x === null ? 1 : -1) * sign;
      return compare(x, y) * sign || a.id - b.id;
    })
    .map((r) => r.id);
}

describeEachDatabase('$orderBy, $deleted, decoding and child lists', (h) => {
  let ids: Map<string, number>;
  beforeAll(async () => {
    ids = await insertFilterSet(h());
  });
  const list = (q: string, path?: string) => names(h(), q, path);

  describe('$orderBy in every form', () => {
    const ASC = ['w11', 'w10', 'w1', 'w2', 'w7', 'w4', 'w8', 'w6', 'w3', 'w5'];
    // descending: empty values first, ties (w2, w7) still by id ascending
    const DESC = ['w3', 'w5', 'w6', 'w8', 'w4', 'w2', 'w7', 'w1', 'w10', 'w11'];
    const cases: [string, string[]][] = [
      ['$orderBy=priority', ASC],
      ['$orderBy=priority:asc', ASC],
      ['$orderBy=priority:desc', DESC],
      ['$orderBy=priority+asc', ASC],
      ['$orderBy=priority+desc', DESC],
      ['$orderBy=priority%20desc', DESC],
      ['$orderBy=priority%20asc', ASC],
      ['%24orderBy=priority%3Adesc', DESC],
      ['$orderBy=priority++desc', DESC],
    ];
    it.each(cases)('%s', async (q, expected) => {
      expect(await list(q)).toEqual(expected);
    });
    it('default order: id ascending', async () => {
      expect(await list('')).toEqual(LIVE);
      expect(await list('$orderBy=id:desc')).toEqual([...LIVE].reverse());
    });
    it('with filters', async () => {
      expect(await list('department_id=1&department_id=2&$orderBy=status:desc')).toEqual(['w7', 'w1', 'w2', 'w5', 'w4']); // É after every ASCII letter
    });
  });

  describe('$orderBy on any field of the resource, ties by id, empty values largest', () => {
    let all: Record<string, any>[];
    beforeAll(async () => {
      const r = await h().get(`${M}/work_orders?$deleted=true&$limit=50`);
      all = r.body;
      // the set holds ties and empty values for the order to handle
      expect(all.filter((w) => w.priority === null).length).toBeGreaterThan(1);
    });
    const FIELDS = [
      'id',
      'created',
      'updated',
      'deleted',
      'department_id',
      'work_order_type_id',
      'work_order_type_group_id',
      'priority',
      'status',
      'description',
      'service_request_id',
    ];
    const cases = FIELDS.flatMap((f) => (['asc', 'desc'] as const).map((d) => [f, d] as const));
    it.each(cases)('%s %s', async (field, direction) => {
      const r = await h().get(`${M}/work_orders?$deleted=true&$limit=50&$orderBy=${field}:${direction}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.map((w: any) => w.id)).toEqual(expectedOrder(all, field, direction));
    });
  });

  describe('$deleted', () => {
    it('true includes soft-deleted records', async () => {
      expect(await list('$deleted=true')).toEqual(Object.keys(FILTER_SET));
      expect(await list('$deleted=true&department_id=1&priority=1')).toEqual(['w1', 'w9']);
    });
    it('false or absent excludes them', async () => {
      expect(await list('$deleted=false')).toEqual(LIVE);
      expect(await list('department_id=1&priority=1')).toEqual(['w1']);
    });
    it('a record deleted through the API leaves the list and stays under $deleted=true', async () => {
      const wo = await make(h(), 'work_orders', { ...WORK_ORDER, department_id: 77, description: 'gone' });
      expect((await h().del(`${M}/work_orders/${wo.id}`)).status).toBe(204);
      expect(await list('department_id=77')).toEqual([]);
      expect(await list('department_id=77&$deleted=true')).toEqual(['gone']);
    });
  });

  describe('values are percent-decoded once, + a space, and colons on the right are the value', () => {
    const cases: [string, string, string[]][] = [
      ['%24 is $', '%24deleted=true&department_id=1&priority=1', ['w1', 'w9']],
      ['%3A is a colon on the left', 'priority%3Agt=3', ['w8', 'w6'].sort()],
      ['+ is a space', 'status=in+progress', ['w10']],
      ['%20 is a space', 'status=in%20progress', ['w10']],
      ['%2B is a literal plus', 'status=a%2Bb', ['w11']],
      ['a raw + is a space, not a plus', 'status=a+b', []],
      ['%25 is a literal percent (decoded once)', 'status=50%25%20done', ['w4']],
      ['%2525 is %25, not %', 'status:like=50%2525%25', []],
      ['a colon in a basic value', 'status=a:b&$deleted=true', ['w9']],
      ['colons in an advanced value', 'status:eq=a:b&$deleted=true', ['w9']],
      ['a percent-encoded colon in a value', 'status:like=a%3A%25&$deleted=true', ['w9']],
      ['non-ASCII, percent-encoded UTF-8', `status=${encodeURIComponent('école')}`, ['w8']],
      ['a backslash in an eq value is literal', qs(['status', 'back\\slash']), ['w6']],
    ];
    it.each(cases)('%s: %s', async (_t, q, expected) => {
      expect((await list(q)).sort()).toEqual(expected.sort());
    });
  });

  describe('child lists take the same language', () => {
    let sr: number;
    let other: number;
    beforeAll(async () => {
      sr = (await make(h(), 'service_requests', SERVICE_REQUEST)).id;
      other = (await make(h(), 'service_requests', SERVICE_REQUEST)).id;
      const child = (body: Record<string, unknown>) => make(h(), `${M}/service_requests/${sr}/work_orders`, { ...WORK_ORDER, ...body });
      await child({ description: 'c1', priority: 2, status: 'open' });
      await child({ description: 'c2', priority: null, status: 'Open' });
      await child({ description: 'c3', priority: 5, status: 'closed' });
      const c4 = await child({ description: 'c4', priority: 2, status: 'open:later' });
      await h().del(`${M}/work_orders/${c4.id}`);
      await make(h(), `${M}/service_requests/${other}/work_orders`, {
        ...WORK_ORDER,
        description: 'elsewhere',
        priority: 2,
        status: 'open',
      });
    });
    const children = (q: string) => list(q, `${M}/service_requests/${sr}/work_orders`);
    const cases: [string, string[]][] = [
      ['', ['c1', 'c2', 'c3']],
      ['priority=2', ['c1']],
      ['priority:ne=2', ['c2', 'c3']],
      ['priority:null=', ['c2']],
      ['status:ilike=OPEN', ['c1', 'c2']],
      ['status:like=open%25&$deleted=true', ['c1', 'c4']],
      ['$orderBy=priority:desc', ['c2', 'c3', 'c1']],
      ['$orderBy=status+asc&$deleted=true', ['c2', 'c3', 'c1', 'c4']],
      ['priority:gte=2&priority:lt=5', ['c1']],
    ];
    it.each(cases)('%s', async (q, expected) => {
      expect(await children(q)).toEqual(expected);
    });
    it('notes of a work order too', async () => {
      const wo = await make(h(), 'work_orders', WORK_ORDER);
      for (const note of ['checked: ok', 'Checked: not ok', 'replaced 50% of it'])
        await make(h(), `${M}/work_orders/${wo.id}/notes`, { note });
      const notes = async (q: string) => {
        const r = await h().get(`${M}/work_orders/${wo.id}/notes?${q}`);
        expect(r.status, r.text).toBe(200);
        return r.body.map((n: any) => n.note);
      };
      expect(await notes('note:eq=checked:%20ok')).toEqual(['checked: ok']);
      expect(await notes('note:ilike=checked:%25')).toEqual(['checked: ok', 'Checked: not ok']);
      expect(await notes(`note:like=${encodeURIComponent('%50\\%%')}`)).toEqual(['replaced 50% of it']);
      expect(await notes('$orderBy=note:desc')).toEqual(['replaced 50% of it', 'checked: ok', 'Checked: not ok']);
    });
  });
});
