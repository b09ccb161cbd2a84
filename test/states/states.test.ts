import { expect, it } from 'vitest';
import { PROBLEM_TYPE_PREFIX } from '../../engine/errors.ts';
import inspections from '../../examples/states/inspections.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { makeRole } from '../support/auth.ts';
import { expectProblem } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';

const I = `${M}/inspections`;

describeEachDatabase(
  'a field with states (SPEC 11)',
  (h) => {
    const make = async (body: Record<string, unknown> = {}) => {
      const r = await h().post(I, { site: 'plant 1', ...body });
      expect(r.status, r.text).toBe(201);
      return r.body;
    };
    const move = async (id: number, status: string, extra: Record<string, unknown> = {}) => {
      const r = await h().patch(`${I}/${id}`, { status, ...extra });
      expect(r.status, r.text).toBe(200);
      return r.body;
    };

    it('starts a record in the initial state; POST with another state is 422', async () => {
      expect((await make()).status).toBe('scheduled');
      expect((await make({ status: 'scheduled' })).status).toBe('scheduled');
      const other = await h().post(I, { site: 'x', status: 'done' });
      expectProblem(other, 422, ['status']);
      expect(other.body.errors[0].message).toContain('scheduled');
    });

    it('accepts only declared values (422 listing them), before any transition check', async () => {
      const { id } = await make();
      for (const r of [await h().patch(`${I}/${id}`, { status: 'closed' }), await h().post(I, { site: 'x', status: 'closed' })]) {
        expectProblem(r, 422, ['status']);
        expect(r.body.errors[0].message).toBe('must be one of the states scheduled, in_progress, on_hold, done, signed_off, cancelled');
      }
    });

    it('allows a declared move and staying; refuses another with 409 naming the field and the allowed states', async () => {
      const { id } = await make({ inspector: 'ana' });
      expect((await h().patch(`${I}/${id}`, { status: 'scheduled', findings: 'none yet' })).status).toBe(200);
      const refused = await h().patch(`${I}/${id}`, { status: 'done', findings: 'ok' });
      expectProblem(refused, 409, ['status']);
      expect(refused.body.type).toBe(`${PROBLEM_TYPE_PREFIX}invalid-transition`);
      expect(refused.body.errors[0].message).toBe(
        'may not move from scheduled to done: from scheduled it may move to in_progress or cancelled',
      );
      expect((await h().get(`${I}/${id}`)).body).toMatchObject({ status: 'scheduled', findings: 'none yet' });
      expect((await move(id, 'in_progress')).status).toBe('in_progress');
    });

    it('PUT without the field keeps the current state; PUT with it moves by the same rules', async () => {
      const { id } = await make({ inspector: 'ana' });
      await move(id, 'in_progress');
      const kept = await h().put(`${I}/${id}`, { site: 'plant 2', inspector: 'ana' });
      expect(kept.status, kept.text).toBe(200);
      expect(kept.body).toMatchObject({ site: 'plant 2', status: 'in_progress', findings: null });
      expectProblem(await h().put(`${I}/${id}`, { site: 'plant 2', inspector: 'ana', status: 'scheduled' }), 409, ['status']);
      const done = await h().put(`${I}/${id}`, { site: 'plant 2', inspector: 'ana', findings: 'fine', status: 'done' });
      expect(done.body.status, done.text).toBe('done');
    });

    it('enter.requires: fields that must be set after the move (422 naming them)', async () => {
      const { id } = await make();
      expectProblem(await h().patch(`${I}/${id}`, { status: 'in_progress' }), 422, ['inspector']);
      expect((await move(id, 'in_progress', { inspector: 'ana' })).status).toBe('in_progress');
      // The record's own value counts: PUT that leaves findings out resets it to null.
      await move(id, 'done', { findings: 'fine' });
      await move(id, 'in_progress');
      expectProblem(await h().put(`${I}/${id}`, { site: 'plant 1', inspector: 'ana', status: 'done' }), 422, ['findings']);
    });

    it('enter.roles: only users holding one of the roles may move a record into the state (403)', async () => {
      await makeRole(h().service, 'demo.main', 'inspector', [{ collection: 'inspections', action: '*' }]);
      await makeRole(h().service, 'demo.main', 'supervisor', [{ collection: 'inspections', action: 'update' }]);
      const inspector = h().as((await h().login({ username: 'ines', roles: ['inspector'] })).token);
      const supervisor = h().as((await h().login({ username: 'sam', roles: ['supervisor'] })).token);
      const { id } = await make({ inspector: 'ines', findings: 'fine' });
      await move(id, 'in_progress');
      expect((await inspector.patch(`${I}/${id}`, { status: 'done' })).status).toBe(200);
      const barred = await inspector.patch(`${I}/${id}`, { status: 'signed_off' });
      expectProblem(barred, 403, ['status']);
      expect(barred.body.errors[0].message).toContain('admin or supervisor');
      expect((await supervisor.patch(`${I}/${id}`, { status: 'signed_off' })).body.status).toBe('signed_off');
    });

    it('checks in SPEC order: 422 for the record, then 409, then 403, then 422 for requires', async () => {
      const { id } = await make();
      // A bad field and a refused move: the record's 422 first.
      expectProblem(await h().patch(`${I}/${id}`, { status: 'done', site: 5 }), 422, ['site']);
      // A refused move whose target also requires a field: 409 first.
      expectProblem(await h().patch(`${I}/${id}`, { status: 'done' }), 409, ['status']);
      await move(id, 'in_progress', { inspector: 'ana' });
      await move(id, 'done', { findings: 'fine' });
      const reader = h().as((await h().login({ username: 'rita', roles: ['inspector'] })).token);
      // Not allowed to enter and (were it allowed) a required field unset: 403 first.
      expectProblem(await reader.patch(`${I}/${id}`, { status: 'signed_off' }), 403, ['status']);
    });

    it('the events of a move carry changed with the field, so a feed consumer can follow the states', async () => {
      const { id } = await make({ inspector: 'ana' });
      const start = Number((await h().get(`${BASE}/events`)).headers.get('x-change-seq'));
      await move(id, 'in_progress');
      expectProblem(await h().patch(`${I}/${id}`, { status: 'signed_off' }), 409);
      await h().put(`${I}/${id}`, { site: 'plant 1', inspector: 'ana', findings: 'fine', status: 'done' });
      const events = (await h().get(`${BASE}/events?$after=${start}&collection=inspections`)).body as any[];
      expect(events.map((e) => [e.op, e.changed, e.record.status])).toEqual([
        ['update', ['status'], 'in_progress'],
        ['update', ['findings', 'status'], 'done'],
      ]);
    });

    it('the shipped resources keep status free', async () => {
      const wo = await h().post(`${M}/service_requests`, { description: 'leak' });
      expect((await h().patch(`${M}/service_requests/${wo.body.id}`, { status: 'anything at all' })).status).toBe(200);
      expect((await h().patch(`${M}/service_requests/${wo.body.id}`, { status: 'new' })).status).toBe(200);
    });
  },
  { resources: [serviceRequests, workOrders, notes, inspections] },
);
