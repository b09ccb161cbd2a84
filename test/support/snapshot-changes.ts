import fc from 'fast-check';
import { expect } from 'vitest';
import { M, type Harness } from './harness.ts';
import { insertRecords, workOrder } from './rows.ts';

/**
 * Random creates, soft deletes and updates of work orders made after a snapshot, and a model of
 * what they leave, for property tests of snapshot layouts (ranged, ascending deltas): pages must
 * be what a naive snapshot's would be. With departments, creates and updates also set one.
 */

/** The records as the test made them: id -> its current priority, deleted flag and (when the test sets it) department. */
export type Model = Map<number, { department_id?: number; priority: number; deleted: boolean }>;

export type Change =
  | { kind: 'create'; n: number; department?: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'update'; pick: number; priority: number; department?: number };

export function changes(department?: fc.Arbitrary<number>): fc.Arbitrary<Change> {
  const dept = department ? { department } : {};
  return fc.oneof(
    fc.record({ kind: fc.constant('create' as const), n: fc.integer({ min: 1, max: 4 }), ...dept }),
    fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), priority: fc.integer({ min: 0, max: 9 }), ...dept }),
  ) as fc.Arbitrary<Change>;
}

/** Makes the change through the service (creates straight into the table) and in the model. */
export async function applyChange(h: Harness, model: Model, c: Change): Promise<void> {
  const live = [...model].filter(([, r]) => !r.deleted).map(([id]) => id);
  const department = 'department' in c && c.department !== undefined ? { department_id: c.department } : {};
  if (c.kind === 'create') {
    const made = await insertRecords(
      h,
      'work_orders',
      Array.from({ length: c.n }, () => workOrder({ ...department, priority: 1 })),
    );
    for (const id of made) model.set(id, { ...department, priority: 1, deleted: false });
  } else if (live.length > 0) {
    const id = live[c.pick % live.length]!;
    if (c.kind === 'delete') {
      expect((await h.del(`${M}/work_orders/${id}`)).status).toBe(204);
      model.get(id)!.deleted = true;
    } else {
      expect((await h.patch(`${M}/work_orders/${id}`, { priority: c.priority, ...department })).status).toBe(200);
      Object.assign(model.get(id)!, { priority: c.priority, ...department });
    }
  }
}
