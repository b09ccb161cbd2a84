import { expect, it } from 'vitest';
import { boolean, date, defineResource, integer, string, timestamp } from '../../engine/define.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { describeEachDatabase, M } from '../support/harness.ts';
import { expectProblem } from '../support/fixtures.ts';

/** A collection with a field of every kind, to prove each kind round-trips on every database. */
const inspections = defineResource({
  name: 'inspections',
  fields: {
    due: date({ required: true, filterable: true }),
    done_at: timestamp({ nullable: true, filterable: true }),
    passed: boolean({ default: false, filterable: true }),
    score: integer({ nullable: true }),
    inspector: string({ default: 'unassigned', maxLength: 20 }),
  },
});

describeEachDatabase(
  'field kinds',
  (h) => {
    const url = `${M}/inspections`;

    it('every kind round-trips; defaults fill what is left out', async () => {
      const r = await h().post(url, { due: '2024-02-29' });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({ due: '2024-02-29', done_at: null, passed: false, score: null, inspector: 'unassigned' });
      const full = await h().post(url, { due: '1999-12-31', done_at: '2024-01-31T08:00:00Z', passed: true, score: -3, inspector: 'Ann' });
      expect(full.status, full.text).toBe(201);
      expect(full.body).toMatchObject({
        due: '1999-12-31',
        done_at: '2024-01-31T08:00:00.000Z',
        passed: true,
        score: -3,
        inspector: 'Ann',
      });
      expect((await h().get(`${url}/${full.body.id}`)).body).toEqual(full.body);
      expect((await h().get(`${url}?passed=true`)).body).toEqual([full.body]);
      expect((await h().get(`${url}?due=2024-02-29`)).body).toEqual([r.body]);
    });

    it('timestamps with an offset are stored in UTC', async () => {
      const r = await h().post(url, { due: '2024-01-01', done_at: '2024-01-01T01:30:00.5+05:30' });
      expect(r.status, r.text).toBe(201);
      expect(r.body.done_at).toBe('2023-12-31T20:00:00.500Z');
      expect((await h().get(`${url}/${r.body.id}`)).body.done_at).toBe('2023-12-31T20:00:00.500Z');
    });

    it('values a kind cannot hold are 422, on every database alike', async () => {
      expectProblem(await h().post(url, { due: '2023-02-29', done_at: '2024-01-31 08:00', passed: 'yes', score: '1', inspector: 7 }), 422, [
        'due',
        'done_at',
        'passed',
        'score',
        'inspector',
      ]);
      expectProblem(await h().post(url, { due: '2024-1-01' }), 422, ['due']);
      expectProblem(await h().post(url, { due: '2024-01-01', done_at: '2024-01-31T08:00:00' }), 422, ['done_at']);
      expectProblem(await h().post(url, { due: '2024-01-01', passed: null }), 422, ['passed']);
      expectProblem(await h().post(url, { due: '2024-01-01', passed: 1 }), 422, ['passed']);
    });

    it('dates and timestamps outside years 1 to 9999 are 422 (PostgreSQL has no year 0)', async () => {
      expectProblem(await h().post(url, { due: '0000-01-01' }), 422, ['due']);
      expectProblem(await h().post(url, { due: '2024-01-01', done_at: '0000-06-01T00:00:00Z' }), 422, ['done_at']);
      expectProblem(await h().post(url, { due: '2024-01-01', done_at: '0001-01-01T00:30:00+01:00' }), 422, ['done_at']);
      // Year 10000 in UTC, though written in 9999: it has no four-digit year to be stored with.
      expectProblem(await h().post(url, { due: '2024-01-01', done_at: '9999-12-31T23:30:00-01:00' }), 422, ['done_at']);
      const first = await h().post(url, { due: '0001-01-01', done_at: '0001-01-01T00:00:00Z' });
      expect(first.status, first.text).toBe(201);
      expect((await h().get(`${url}/${first.body.id}`)).body).toMatchObject({ due: '0001-01-01', done_at: '0001-01-01T00:00:00.000Z' });
      const last = await h().post(url, { due: '9999-12-31', done_at: '9999-12-31T23:59:59.999Z' });
      expect(last.status, last.text).toBe(201);
      expect((await h().get(`${url}/${last.body.id}`)).body).toMatchObject({ due: '9999-12-31', done_at: '9999-12-31T23:59:59.999Z' });
    });
  },
  { resources: [workOrders, notes, serviceRequests, inspections] },
);
