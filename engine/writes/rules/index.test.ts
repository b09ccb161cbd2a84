import { describe, expect, it } from 'vitest';
import inspections from '../../../examples/states/inspections.ts';
import { errorOf } from '../../errors.ts';
import { createRegistry } from '../../registry.ts';
import type { Mover } from '../../states/transition.ts';
import { bodyProblemsOf, refusals } from './index.ts';

const resource = createRegistry([inspections]).get('inspections')!;
const current = { record: { id: 7, site: 'x', inspector: null, findings: null, status: 'scheduled' }, version: 3 };
const judge = (sent: Record<string, unknown>, mover: Mover = {}) => refusals(resource, { sent, values: sent, mover }, current);

describe('refusals: one Result per record read', () => {
  it('gives the record read when every rule holds', () => {
    expect(judge({ site: 'y' })).toEqual({ value: current });
  });

  it("joins the rules' body problems into one invalid-body error, which the body's problems take in", () => {
    const refused = judge({ id: 8, status: 'done' });
    expect(errorOf(refused)?.code).toBe('invalid-body');
    // The read-only id is reported; the 409 of the state waits until the body is fixed.
    expect(bodyProblemsOf(refused)).toEqual([{ field: 'id', message: 'is set by the server; send it only with its current value 7' }]);
  });

  it('gives an error of its own (409, 403) as it is, with no body problems to join', () => {
    const refused = judge({ status: 'done' });
    expect(errorOf(refused)?.status).toBe(409);
    expect(bodyProblemsOf(refused)).toEqual([]);
  });

  it("reports a state's required field as a body problem", () => {
    const refused = judge({ status: 'in_progress' });
    expect(errorOf(refused)?.code).toBe('invalid-body');
    expect(bodyProblemsOf(refused)).toEqual([{ field: 'inspector', message: 'must be set to move status into in_progress' }]);
  });
});
