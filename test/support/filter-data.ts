import { expect } from 'vitest';
import { M, type Harness } from './harness.ts';
import { insertRecords, workOrder } from './rows.ts';

/**
 * A small named set of work orders for filter tests; each record's `description` is its name,
 * so answers read as names. Every list is asked with `$limit=50`: the sets stay under 50.
 */
export const FILTER_SET: Record<string, Record<string, unknown>> = {
  w1: { department_id: 1, priority: 1, status: 'open', created: '2023-01-10' },
  w2: { department_id: 2, priority: 2, status: 'Open', created: '2023-02-28' },
  w3: { department_id: 3, priority: null, status: 'closed', created: '2023-03-01' },
  w4: { department_id: 1, priority: 3, status: '50% done', created: '2024-02-29' },
  w5: { department_id: 2, priority: null, status: '50_x done', created: '2024-03-01' },
  w6: { department_id: 3, priority: 5, status: 'back\\slash', created: '2024-12-31' },
  w7: { department_id: 1, priority: 2, status: 'ÉCOLE', created: '2023-01-10' },
  w8: { department_id: 4, priority: 4, status: 'école', created: '2023-01-10' },
  w9: { department_id: 1, priority: 1, status: 'a:b', created: '2023-06-15', deleted: true },
  w10: { department_id: 5, priority: 0, status: 'in progress', created: '2023-06-15' },
  w11: { department_id: 5, priority: -1, status: 'a+b', created: '2022-12-31' },
};
export const LIVE = Object.keys(FILTER_SET).filter((k) => !FILTER_SET[k]!.deleted);

/** Inserts the set straight into the table; returns name -> id. */
export async function insertFilterSet(h: Harness): Promise<Map<string, number>> {
  const names = Object.keys(FILTER_SET);
  const ids = await insertRecords(
    h,
    'work_orders',
    names.map((n) => workOrder({ ...FILTER_SET[n], description: n })),
  );
  return new Map(names.map((n, i) => [n, ids[i]!]));
}

/**
 * The names a list answers, in order; the query is sent as written (already encoded). Checks the
 * answer is a 200 whose X-Total is the number of records shown (every match fits on the page).
 */
export async function names(h: Harness, query: string, path = `${M}/work_orders`): Promise<string[]> {
  const r = await h.get(`${path}?${query}${query ? '&' : ''}$limit=50`);
  expect(r.status, r.text).toBe(200);
  expect(Array.isArray(r.body), r.text).toBe(true);
  expect(r.headers.get('x-total'), `${query}: X-Total`).toBe(String(r.body.length));
  return r.body.map((rec: { description: string }) => rec.description);
}

/** `name=value&...`, each part percent-encoded: tests write values as the server should see them. */
export const qs = (...pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

/** Live names sorted by id (the default order), filtered by a predicate on their data. */
export const liveWhere = (pred: (r: Record<string, any>) => boolean) => LIVE.filter((n) => pred(FILTER_SET[n]!));
