import { expect, it } from 'vitest';
import inspections from '../../examples/states/inspections.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

const I = `${M}/inspections`;
/** Rounds per database: SPEC's proof asks for 200; each round is a fresh record. */
const ROUNDS = 200;

describeEachDatabase(
  'two moves sent at once from one state (SPEC 11)',
  (h) => {
    it(`never both pass when either forbids the other (${ROUNDS} rounds)`, async () => {
      const outcomes = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        const c = await h().post(I, { site: `s${round}`, inspector: 'ana', findings: 'fine' });
        const id = c.body.id as number;
        expect((await h().patch(`${I}/${id}`, { status: 'in_progress' })).status).toBe(200);
        // From in_progress both on_hold and done are allowed; from either one, not the other.
        const [hold, done] = await Promise.all([
          h().patch(`${I}/${id}`, { status: 'on_hold' }),
          h().patch(`${I}/${id}`, { status: 'done' }),
        ]);
        const statuses = [hold.status, done.status].sort();
        expect(statuses, `round ${round}: ${hold.text} ${done.text}`).toEqual([200, 409]);
        const winner = hold.status === 200 ? 'on_hold' : 'done';
        expect((await h().get(`${I}/${id}`)).body.status).toBe(winner);
        outcomes.set(winner, (outcomes.get(winner) ?? 0) + 1);
      }
      expect([...outcomes.values()].reduce((a, b) => a + b)).toBe(ROUNDS);
    }, 120_000);
  },
  { resources: [inspections] },
);
