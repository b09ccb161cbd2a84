import { expect, it } from 'vitest';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { expectProblem, make, makeNote, makeWorkOrder, SERVICE_REQUEST, WORK_ORDER } from '../support/fixtures.ts';

describeEachDatabase('child collections', (h) => {
  it('notes are created and listed under their work order, the parent link taken from the path', async () => {
    const wo = await makeWorkOrder(h());
    const other = await makeWorkOrder(h());
    const r = await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 'replaced the filter' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ work_order_id: wo.id, note: 'replaced the filter', deleted: false });
    expect(r.headers.get('location')).toBe(`${M}/notes/${r.body.id}`);
    const second = await makeNote(h(), wo.id, 'checked: ok');
    await makeNote(h(), other.id, 'elsewhere');
    const list = await h().get(`${M}/work_orders/${wo.id}/notes`);
    expect(list.status, list.text).toBe(200);
    expect(list.body).toEqual([r.body, second]);
    expect(list.headers.get('x-total')).toBe('2');
  });

  it('a note is read, changed and deleted at /maintenance/notes/{id}', async () => {
    const wo = await makeWorkOrder(h());
    const note = await makeNote(h(), wo.id);
    expect((await h().get(`${M}/notes/${note.id}`)).body).toEqual(note);
    const p = await h().patch(`${M}/notes/${note.id}`, { note: 'edited' });
    expect(p.status, p.text).toBe(200);
    expect(p.body).toMatchObject({ id: note.id, note: 'edited', work_order_id: wo.id });
    expect((await h().del(`${M}/notes/${note.id}`)).status).toBe(204);
    expect((await h().get(`${M}/work_orders/${wo.id}/notes`)).body).toEqual([]);
  });

  it('the same parent link in the body is accepted; a different one is 422 naming it', async () => {
    const wo = await makeWorkOrder(h());
    const other = await makeWorkOrder(h());
    const same = await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 'x', work_order_id: wo.id });
    expect(same.status, same.text).toBe(201);
    const before = (await h().get(`${M}/notes`)).headers.get('x-total');
    expectProblem(await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 'x', work_order_id: other.id }), 422, ['work_order_id']);
    // reported together with the body's other problems
    expectProblem(await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 5, work_order_id: other.id }), 422, ['note', 'work_order_id']);
    expect((await h().get(`${M}/notes`)).headers.get('x-total')).toBe(before);
  });

  it('a top-level POST of a note needs the parent link in the body', async () => {
    const wo = await makeWorkOrder(h());
    expectProblem(await h().post(`${M}/notes`, { note: 'orphan' }), 422, ['work_order_id']);
    const r = await h().post(`${M}/notes`, { note: 'adopted', work_order_id: wo.id });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get('location')).toBe(`${M}/notes/${r.body.id}`);
    expect((await h().get(`${M}/work_orders/${wo.id}/notes`)).body).toEqual([r.body]);
  });

  it('a parent link naming a missing or soft-deleted parent is 422, and leaves no row', async () => {
    const gone = await makeWorkOrder(h());
    expect((await h().del(`${M}/work_orders/${gone.id}`)).status).toBe(204);
    const before = (await h().get(`${M}/notes?$deleted=true`)).headers.get('x-total');
    expectProblem(await h().post(`${M}/notes`, { note: 'x', work_order_id: 987654 }), 422, ['work_order_id']);
    expectProblem(await h().post(`${M}/notes`, { note: 'x', work_order_id: gone.id }), 422, ['work_order_id']);
    expectProblem(await h().post(`${M}/work_orders`, { ...WORK_ORDER, service_request_id: 987654 }), 422, ['service_request_id']);
    expect((await h().get(`${M}/notes?$deleted=true`)).headers.get('x-total')).toBe(before);
  });

  it('PATCH and PUT of a parent link must name a live parent; keeping a now-deleted parent is allowed', async () => {
    const sr = await make(h(), 'service_requests', SERVICE_REQUEST);
    const wo = await makeWorkOrder(h(), { service_request_id: sr.id });
    const note = await makeNote(h(), wo.id);
    expectProblem(await h().patch(`${M}/notes/${note.id}`, { work_order_id: 987654 }), 422, ['work_order_id']);
    expectProblem(await h().put(`${M}/notes/${note.id}`, { note: 'y', work_order_id: 987654 }), 422, ['work_order_id']);
    expectProblem(await h().patch(`${M}/work_orders/${wo.id}`, { service_request_id: 987654 }), 422, ['service_request_id']);
    expect((await h().get(`${M}/notes/${note.id}`)).body).toEqual(note);
    const moved = await makeWorkOrder(h());
    const p = await h().patch(`${M}/notes/${note.id}`, { work_order_id: moved.id });
    expect(p.status, p.text).toBe(200);
    expect((await h().get(`${M}/work_orders/${moved.id}/notes`)).body).toEqual([p.body]);
    // the parent goes away; the child can still be edited without touching its link
    expect((await h().del(`${M}/service_requests/${sr.id}`)).status).toBe(204);
    const again = await h().patch(`${M}/work_orders/${wo.id}`, { priority: 1 });
    expect(again.status, again.text).toBe(200);
    expect(again.body.service_request_id).toBe(sr.id);
    // Sent again, the record's own (deleted) parent stays; another deleted one is refused, with the body's problems.
    const kept = await h().patch(`${M}/work_orders/${wo.id}`, { service_request_id: sr.id, priority: 2 });
    expect(kept.status, kept.text).toBe(200);
    const gone = await make(h(), 'service_requests', SERVICE_REQUEST);
    expect((await h().del(`${M}/service_requests/${gone.id}`)).status).toBe(204);
    expectProblem(await h().patch(`${M}/work_orders/${wo.id}`, { service_request_id: gone.id }), 422, ['service_request_id']);
    expectProblem(await h().patch(`${M}/work_orders/${wo.id}`, { service_request_id: gone.id, priority: 'high' }), 422, [
      'priority',
      'service_request_id',
    ]);
  });

  it('creates under live and deleted parents sent at once are each answered on their own, with their events', async () => {
    // A create looks its parents up in its own INSERT: one that finds a parent gone inserts
    // nothing, which must not undo the creates written beside it (SQLite: in one group commit).
    const live = await makeWorkOrder(h());
    const gone = await makeWorkOrder(h());
    expect((await h().del(`${M}/work_orders/${gone.id}`)).status).toBe(204);
    const sent = Array.from({ length: 24 }, (_, i) =>
      i % 3 === 0
        ? h().post(`${M}/work_orders/${gone.id}/notes`, { note: `late ${i}` })
        : i % 3 === 1
          ? h().post(`${M}/notes`, { note: `linked ${i}`, work_order_id: i % 2 ? live.id : gone.id })
          : h().post(`${M}/work_orders/${live.id}/notes`, { note: `under ${i}` }),
    );
    const answers = await Promise.all(sent);
    const made: unknown[] = [];
    answers.forEach((r, i) => {
      if (i % 3 === 0) expectProblem(r, 404);
      else if (i % 3 === 1 && i % 2 === 0) expectProblem(r, 422, ['work_order_id']);
      else {
        expect(r.status, r.text).toBe(201);
        made.push(r.body);
      }
    });
    const listed = (await h().get(`${M}/work_orders/${live.id}/notes?$limit=100`)).body as { id: number }[];
    expect(listed).toEqual([...made].sort((a, b) => (a as { id: number }).id - (b as { id: number }).id));
    expect((await h().get(`${M}/work_orders/${gone.id}/notes?$deleted=true`)).body).toEqual([]);
    const events = (await h().get(`${BASE}/events?collection=notes&op=create&$limit=1000`)).body as { id: number; record: unknown }[];
    for (const note of made) expect(events.find((e) => e.id === (note as { id: number }).id)?.record).toEqual(note);
  });

  it('a child read back and sent again keeps its link, even to a parent deleted since; a link moved to a gone parent is 422', async () => {
    const wo = await makeWorkOrder(h());
    const other = await makeWorkOrder(h());
    const note = await makeNote(h(), wo.id, 'read back');
    const put = await h().put(`${M}/notes/${note.id}`, { ...note, note: 'sent again' });
    expect(put.status, put.text).toBe(200);
    expect((await h().del(`${M}/work_orders/${wo.id}`)).status).toBe(204);
    const kept = await h().put(`${M}/notes/${note.id}`, { ...put.body, note: 'parent gone' });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body).toMatchObject({ work_order_id: wo.id, note: 'parent gone' });
    const same = await h().patch(`${M}/notes/${note.id}`, { work_order_id: wo.id, note: 'still' });
    expect(same.status, same.text).toBe(200);
    expectProblem(await h().patch(`${M}/notes/${note.id}`, { work_order_id: 987654 }), 422, ['work_order_id']);
    expect((await h().del(`${M}/work_orders/${other.id}`)).status).toBe(204);
    expectProblem(await h().put(`${M}/notes/${note.id}`, { ...same.body, work_order_id: other.id }), 422, ['work_order_id']);
    expectProblem(await h().put(`${M}/notes/${note.id}`, { ...same.body, work_order_id: other.id, deleted: true }), 422, [
      'work_order_id',
      'deleted',
    ]);
    expect((await h().get(`${M}/notes/${note.id}`)).body).toEqual(same.body);
    const moved = await makeWorkOrder(h());
    const to = await h().put(`${M}/notes/${note.id}`, { ...same.body, work_order_id: moved.id });
    expect(to.status, to.text).toBe(200);
    const events = (await h().get(`${BASE}/events?collection=notes&$limit=1000`)).body as { id: number; changed: string[] }[];
    expect(events.filter((e) => e.id === note.id).map((e) => e.changed)).toEqual([
      ['work_order_id', 'note'],
      ['note'],
      ['note'],
      ['note'],
      ['work_order_id'],
    ]);
  });

  it('a child list or create under a missing parent is 404', async () => {
    expectProblem(await h().get(`${M}/work_orders/987654/notes`), 404);
    expectProblem(await h().post(`${M}/work_orders/987654/notes`, { note: 'x' }), 404);
    expectProblem(await h().get(`${M}/service_requests/987654/work_orders`), 404);
    expectProblem(await h().post(`${M}/service_requests/987654/work_orders`, WORK_ORDER), 404);
  });

  it('under a soft-deleted parent: create is 404, the list is 404 unless $deleted=true', async () => {
    const wo = await makeWorkOrder(h());
    const note = await makeNote(h(), wo.id);
    expect((await h().del(`${M}/work_orders/${wo.id}`)).status).toBe(204);
    expectProblem(await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 'late' }), 404);
    expectProblem(await h().get(`${M}/work_orders/${wo.id}/notes`), 404);
    const shown = await h().get(`${M}/work_orders/${wo.id}/notes?$deleted=true`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body).toEqual([note]);
    expect((await h().get(`${M}/notes?work_order_id=${wo.id}`)).body).toEqual([note]);
  });

  it('service_requests/{id}/work_orders lists and creates work orders of one request', async () => {
    const sr = await make(h(), 'service_requests', SERVICE_REQUEST);
    await makeWorkOrder(h());
    const r = await h().post(`${M}/service_requests/${sr.id}/work_orders`, WORK_ORDER);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ ...WORK_ORDER, service_request_id: sr.id });
    expect(r.headers.get('location')).toBe(`${M}/work_orders/${r.body.id}`);
    const top = await makeWorkOrder(h(), { service_request_id: sr.id });
    const list = await h().get(`${M}/service_requests/${sr.id}/work_orders`);
    expect(list.body).toEqual([r.body, top]);
    expectProblem(await h().post(`${M}/service_requests/${sr.id}/work_orders`, { ...WORK_ORDER, service_request_id: null }), 422, [
      'service_request_id',
    ]);
  });

  it('a child list takes plain field=value filters within its parent', async () => {
    const wo = await makeWorkOrder(h());
    const a = await makeNote(h(), wo.id, 'alpha');
    await makeNote(h(), wo.id, 'beta');
    const other = await makeWorkOrder(h());
    await makeNote(h(), other.id, 'alpha');
    const r = await h().get(`${M}/work_orders/${wo.id}/notes?note=alpha`);
    expect(r.body).toEqual([a]);
    expect(r.headers.get('x-total')).toBe('1');
  });
});
