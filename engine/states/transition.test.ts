import { describe, expect, it } from 'vitest';
import inspections from '../../examples/states/inspections.ts';
import { createRegistry } from '../registry.ts';
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
      expect(checkTransition(resource, record(from), record(to, more), mover)?.status).toBe(status);
    });

  it('names the field and the states allowed from the current one', () => {
    expect(checkTransition(resource, record('on_hold'), record('done'), ADMIN)?.errors).toEqual([
      { field: 'status', message: 'may not move from on_hold to done: from on_hold it may move to in_progress or cancelled' },
    ]);
    expect(checkTransition(resource, record('cancelled'), record('done'), ADMIN)?.errors[0]?.message).toMatch(/it may move to none$/);
  });
});
