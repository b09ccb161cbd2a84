import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import inspections from '../../examples/states/inspections.ts';
import { errorOf } from '../errors.ts';
import { createRegistry } from '../registry.ts';
import { holds } from '../writes/conditions.ts';
import { statesRule } from '../writes/rules/states.ts';
import { checkTransition, type Mover } from './transition.ts';

const resource = createRegistry([inspections]).get('inspections')!;
const record = (status: string, more: Record<string, unknown> = {}) => ({ site: 'x', inspector: 'ana', findings: 'ok', status, ...more });
const ADMIN: Mover = { user: 'a', roles: ['admin'] };

describe('checkTransition', () => {
  const CASES: [string, string, Record<string, unknown>, Mover, number | undefined][] = [
    ['scheduled', 'scheduled', {}, ADMIN, undefined],
    ['scheduled', 'in_progress', {}, ADMIN, undefined],
    ['scheduled', 'done', {}, ADMIN, 409],
    ['signed_off', 'in_progress', {}, ADMIN, 409],
    ['done', 'signed_off', {}, { user: 'b', roles: ['inspector'] }, 403],
    ['done', 'signed_off', {}, { user: 'b', roles: ['supervisor'] }, undefined],
    // A user the host gave no roles holds none; no user at all is an engine without authentication.
    ['done', 'signed_off', {}, { user: 'b' }, 403],
    ['done', 'signed_off', {}, {}, undefined],
    ['scheduled', 'in_progress', { inspector: null }, ADMIN, 422],
    ['in_progress', 'done', { findings: null }, ADMIN, 422],
    // Staying in a state asks nothing of its entry rules.
    ['done', 'done', { findings: null }, {}, undefined],
    // 409 before 403 before 422.
    ['scheduled', 'signed_off', { findings: null }, { user: 'b', roles: [] }, 409],
  ];
  for (const [from, to, more, mover, status] of CASES)
    it(`${from} -> ${to} ${JSON.stringify(more)} by ${JSON.stringify(mover)}: ${status ?? 'allowed'}`, () => {
      expect(errorOf(checkTransition(resource, record(from), record(to, more), mover))?.status).toBe(status);
    });

  it('names the field and the states allowed from the current one', () => {
    expect(errorOf(checkTransition(resource, record('on_hold'), record('done'), ADMIN))?.errors).toEqual([
      { field: 'status', message: 'may not move from on_hold to done: from on_hold it may move to in_progress or cancelled' },
    ]);
    expect(errorOf(checkTransition(resource, record('cancelled'), record('done'), ADMIN))?.errors[0]?.message).toMatch(
      /it may move to none$/,
    );
  });
});

describe("the states rule's row conditions", () => {
  const stateChecks = (values: Record<string, unknown>, mover: Mover) => statesRule.conditions(resource, { sent: values, values, mover });

  it('hold on a record exactly where checkTransition allows the write', () => {
    const states = Object.keys(inspections.fields.status.states);
    const optional = fc.option(fc.constantFrom('ana', 'fine'), { nil: null });
    const movers = fc.constantFrom<Mover>(
      ADMIN,
      { user: 'b', roles: ['inspector'] },
      { user: 'b' },
      {},
      { user: 'c', roles: ['supervisor'] },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...states),
        fc.record({ inspector: optional, findings: optional }),
        fc.record({ status: fc.constantFrom(...states), inspector: optional, findings: optional }, { requiredKeys: [] }),
        movers,
        (from, current, values, mover) => {
          const row = { site: 'x', status: from, ...current };
          const allowed = 'value' in checkTransition(resource, row, { ...row, ...values }, mover);
          expect(stateChecks(values, mover).every((c) => holds(c, { record: row, version: 1 }))).toBe(allowed);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('asks nothing of a write that sends no state', () => {
    expect(stateChecks({ findings: null }, ADMIN)).toEqual([]);
  });
});
