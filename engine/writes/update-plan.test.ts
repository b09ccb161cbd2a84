import { describe, expect, it } from 'vitest';
import inspections from '../../examples/states/inspections.ts';
import type { SqlFlavour } from '../dialects/types.ts';
import { errorOf, valueOf } from '../errors.ts';
import type { Condition } from '../http/conditional.ts';
import { createRegistry } from '../registry.ts';
import { planReadDelete, planUnreadDelete } from './plan.ts';
import { ifMatchCondition } from './rules/if-match.ts';
import { checkedUpdate, planReadUpdate, planUnreadUpdate, type UpdateAsk } from './update-plan.ts';

const resource = createRegistry([inspections]).get('inspections')!;
// Values as they are: what a plan encodes is the flavour's business, not the plan's.
const caller = {
  flavour: { encode: (_kind: string, v: unknown) => v } as unknown as SqlFlavour,
  at: '2026-01-01T00:00:00.000Z',
  user: 'u',
};
const current = {
  record: { id: 7, site: 'x', inspector: null, findings: null, status: 'scheduled', updated: '2999-01-01T00:00:00.000Z' },
  version: 3,
};
const tag = (opaque: string, weak = false): Condition => ({ any: false, tags: [{ opaque, weak }] });
const ask = (body: unknown, ifMatch?: Condition): UpdateAsk => ({ resource, id: 7, body, mode: 'patch', ifMatch, mover: {} });
const fromRead = (a: UpdateAsk, expected?: number) =>
  planReadUpdate(a, caller, { current, expected }, checkedUpdate(a), { live: () => true });

describe('a PATCH planned without a read', () => {
  it.each([
    ['a body with problems', ask({ site: 5 })],
    ['a body that is not an object', ask([1])],
    ['an If-Match naming no version of ours', ask({ site: 'y' }, tag('W/"3"', true))],
  ])('is left to its read: %s', (_name, a) => {
    expect(planUnreadUpdate(a, caller)).toBeUndefined();
  });

  it("puts its If-Match and its rules in its conditions, and stamps it now for the statement to keep after the row's own", () => {
    const plan = planUnreadUpdate(ask({ site: 'y', status: 'in_progress', inspector: 'i' }, tag('"3"')), caller)!;
    expect(plan).toMatchObject({ kind: 'update', id: 7, row: { site: 'y', status: 'in_progress', inspector: 'i' } });
    expect(plan.conditions[0]).toEqual({ is: 'version', value: 3 });
    expect(plan.conditions.length).toBeGreaterThan(1); // the states rule: the move allowed from where the row is
    expect(Date.parse(plan.row.updated as string)).toBeLessThanOrEqual(Date.now());
  });
});

describe('a PATCH planned from the record read', () => {
  it("keeps the version read for a record with states (a compare-and-set) and stamps after the record's own", () => {
    const plan = valueOf(fromRead(ask({ site: 'y' })));
    expect(plan.conditions).toEqual([{ is: 'version', value: 3 }]);
    expect(plan.row.updated).toBe('2999-01-01T00:00:00.001Z');
  });

  it("refuses as the rules do: the body's problems with the rules', or a state's 409 alone", () => {
    expect(errorOf(fromRead(ask({ site: 5, id: 8 })))?.errors.map((p) => ('field' in p ? p.field : undefined))).toEqual(['site', 'id']);
    expect(errorOf(fromRead(ask({ status: 'done' })))?.status).toBe(409);
  });
});

describe('a soft delete', () => {
  it('without a read: its If-Match its condition; none of ours, left to its read', () => {
    expect(planUnreadDelete(resource, 7, caller, ifMatchCondition(tag('"3"')))?.conditions).toEqual([{ is: 'version', value: 3 }]);
    expect(planUnreadDelete(resource, 7, caller, undefined)).toMatchObject({ kind: 'delete', row: { deleted: true }, conditions: [] });
    expect(planUnreadDelete(resource, 7, caller, ifMatchCondition(tag('"x"')))).toBeUndefined();
  });

  it('from the record read: at the version its If-Match asked, when it asked one', () => {
    expect(planReadDelete(resource, 7, caller, current, 3).conditions).toEqual([{ is: 'version', value: 3 }]);
    expect(planReadDelete(resource, 7, caller, current, undefined).conditions).toEqual([]);
  });
});
