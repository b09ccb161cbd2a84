import { describe, expect, it } from 'vitest';
import { lessonOf, strategiesFor, takeSnapshot, type Strategy } from './strategy.ts';
import type { Snapshot, SnapshotStore } from './snapshot-store.ts';
import { tenantDb } from '../tenant-db.ts';
import { Kysely, DummyDriver, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';

const binding = { collection: 'notes', scope: '', owner: '' };
const query = (filters: Record<string, string[]> = {}) => ({ filters, order: 'id:asc', deleted: false, limit: 10 });
const search = (
  over: { filters?: Record<string, string[]>; field?: string; direction?: 'asc' | 'desc'; start?: number; scope?: string } = {},
) => ({
  query: query(over.filters),
  search: {
    filters: Object.entries(over.filters ?? {}).map(([key, values]) => ({
      field: key.split(':')[0]!,
      kind: 'string' as const,
      op: 'eq' as const,
      values,
    })),
    scope: over.scope ? { field: 'work_order_id', id: Number(over.scope.split('/')[1]) } : undefined,
    order: { field: over.field ?? 'id', direction: over.direction ?? 'asc' } as const,
  },
  binding: { ...binding, scope: over.scope ?? '' },
  start: over.start ?? 0,
});
const snap = (total: number): Snapshot => ({ total, records: { ids: [] }, changeSeq: 0 });

describe('strategiesFor', () => {
  const open = { 'status:eq': ['"open"'] };
  it.each<[string, ReturnType<typeof search>, Strategy[]]>([
    ['page 1 of the whole table in id order', search(), ['ranged', 'lazy']],
    ['a later page of the whole table in id order', search({ start: 20 }), ['ranged', 'ascending', 'ordered']],
    ['page 1 of a filtered search', search({ filters: open }), ['lazy']],
    ['a later page of a filtered search in id order', search({ filters: open, start: 20 }), ['ascending', 'ordered']],
    ['a later page in another order', search({ field: 'priority', start: 20 }), ['ordered']],
    ['a later page in descending id order', search({ direction: 'desc', start: 20 }), ['ordered']],
    ['a later page of a child list', search({ scope: 'work_orders/5', start: 20 }), ['ascending', 'ordered']],
  ])('%s', (_, s, expected) => expect(strategiesFor(s, {}, 0)).toEqual(expected));

  it('skips ranged for a while after a search was not ranged, then tries again', () => {
    expect(strategiesFor(search(), { unrangedAt: 1000 }, 1000 + 59_999)).toEqual(['lazy']);
    expect(strategiesFor(search(), { unrangedAt: 1000 }, 1000 + 60_000)).toEqual(['ranged', 'lazy']);
  });

  it('skips ascending for a search found small or wide', () => {
    expect(strategiesFor(search({ filters: open, start: 20 }), { small: true }, 0)).toEqual(['ordered']);
    expect(strategiesFor(search({ filters: open, start: 20 }), { wide: true }, 0)).toEqual(['ordered']);
  });
});

describe('lessonOf', () => {
  it('learns what each outcome says about the search', () => {
    expect(lessonOf('ranged', undefined, {}, 0, 7)).toEqual({ unrangedAt: 7 });
    expect(lessonOf('ranged', snap(5), {}, 0, 7)).toBeUndefined();
    expect(lessonOf('ascending', undefined, {}, 2000, 7)).toEqual({ wide: true });
    expect(lessonOf('ascending', snap(1999), {}, 2000, 7)).toEqual({ small: true });
    expect(lessonOf('ascending', snap(2000), {}, 2000, 7)).toBeUndefined();
    expect(lessonOf('ordered', snap(2000), { small: true }, 2000, 7)).toEqual({ small: undefined });
    expect(lessonOf('ordered', snap(1999), { small: true }, 2000, 7)).toBeUndefined();
    expect(lessonOf('ordered', snap(5000), {}, 2000, 7)).toBeUndefined();
    expect(lessonOf('lazy', snap(5), {}, 2000, 7)).toBeUndefined();
  });
});

describe('takeSnapshot', () => {
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });

  it('tries strategies in order until one fits, and keeps what each taught in the tenant state', async () => {
    const t = tenantDb(db, { key: 'strategy-test' });
    const tried: Strategy[] = [];
    const store = {
      ascendingFrom: 2000,
      take: async (_t: unknown, _args: unknown, strategy: Strategy) => {
        tried.push(strategy);
        return strategy === 'ranged' ? undefined : snap(10);
      },
    } as unknown as SnapshotStore;
    const args = { ...search({ start: 20 }), searchKey: 'k' } as never;
    expect((await takeSnapshot(t, store, args, 1000)).total).toBe(10);
    expect(tried).toEqual(['ranged', 'ascending']);
    tried.length = 0;
    await takeSnapshot(t, store, args, 2000);
    // Not ranged a second ago; small: ordered from now on.
    expect(tried).toEqual(['ordered']);
  });
});
