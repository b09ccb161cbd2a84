import { expect, it } from 'vitest';
import { describeEachDatabase, M } from '../support/harness.ts';
import { expectProblem, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const MiB = 1024 * 1024;

/** A JSON object of about `bytes` bytes, valid apart from its size. */
const bigBody = (bytes: number) => JSON.stringify({ ...WORK_ORDER, description: 'x'.repeat(bytes) });

/** A body sent as a stream: no Content-Length, the size is only found by reading it. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 64 * 1024));
      at += 64 * 1024;
    },
  });
}

describeEachDatabase('request bodies', (h) => {
  const wo = `${M}/work_orders`;

  it('415 for a missing or non-JSON content type; application/json; charset=utf-8 is accepted', async () => {
    const body = JSON.stringify(WORK_ORDER);
    expectProblem(await h().request('POST', wo, { raw: body }), 415);
    expectProblem(await h().request('POST', wo, { raw: body, headers: { 'content-type': 'text/plain' } }), 415);
    expectProblem(await h().request('POST', wo, { raw: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
    expectProblem(await h().request('POST', wo, { raw: body, headers: { 'content-type': 'application/jsonx' } }), 415);
    const ok = await h().request('POST', wo, { raw: body, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(ok.status, ok.text).toBe(201);
    const made = await makeWorkOrder(h());
    expectProblem(
      await h().request('PATCH', `${wo}/${made.id}`, { raw: '{"priority":1}', headers: { 'content-type': 'text/plain' } }),
      415,
    );
    expectProblem(await h().request('PUT', `${wo}/${made.id}`, { raw: body }), 415);
    expectProblem(
      await h().request('POST', `${wo}/${made.id}/notes`, { raw: '{"note":"x"}', headers: { 'content-type': 'text/plain' } }),
      415,
    );
  });

  it('413 for a body over 1 MiB, with a Content-Length', async () => {
    const r = await h().request('POST', wo, { raw: bigBody(MiB + 10), headers: JSON_HEADERS });
    expectProblem(r, 413);
    const made = await makeWorkOrder(h());
    expectProblem(await h().request('PATCH', `${wo}/${made.id}`, { raw: bigBody(MiB + 10), headers: JSON_HEADERS }), 413);
    expectProblem(await h().request('PUT', `${wo}/${made.id}`, { raw: bigBody(MiB + 10), headers: JSON_HEADERS }), 413);
  });

  it('413 for a streamed body over 1 MiB with no Content-Length; a streamed body under it is served', async () => {
    const send = async (text: string) => {
      const res = await h().service.app.request(wo, {
        method: 'POST',
        headers: { ...JSON_HEADERS, ...h().authHeaders() },
        body: streamOf(text),
        duplex: 'half',
      } as RequestInit);
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    const big = await send(bigBody(MiB + 10));
    expect(big.status, big.text).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const small = await send(bigBody(1000));
    expect(small.status, small.text).toBe(201);
  });

  it('a body just under 1 MiB is served', async () => {
    const text = bigBody(MiB - 200);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(MiB);
    const r = await h().request('POST', wo, { raw: text, headers: JSON_HEADERS });
    expect(r.status, r.text.slice(0, 200)).toBe(201);
    expect(r.body.description).toHaveLength(MiB - 200);
  });

  it('400 for malformed JSON, an empty body, and bytes that are not UTF-8', async () => {
    for (const raw of ['{', '{"department_id": 1,}', "{'a': 1}", '', 'undefined', '{"a":1} {"b":2}']) {
      expectProblem(await h().request('POST', wo, { raw, headers: JSON_HEADERS }), 400);
    }
    expectProblem(
      await h().request('POST', wo, { raw: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), headers: JSON_HEADERS }),
      400,
    );
    const made = await makeWorkOrder(h());
    expectProblem(await h().request('PATCH', `${wo}/${made.id}`, { raw: '{"priority": ', headers: JSON_HEADERS }), 400);
  });

  it('422 for a body that is JSON but not an object', async () => {
    const made = await makeWorkOrder(h());
    for (const raw of ['[]', '[1,2]', 'null', '1', '"text"', 'true']) {
      expectProblem(await h().request('POST', wo, { raw, headers: JSON_HEADERS }), 422);
      expectProblem(await h().request('PUT', `${wo}/${made.id}`, { raw, headers: JSON_HEADERS }), 422);
      expectProblem(await h().request('PATCH', `${wo}/${made.id}`, { raw, headers: JSON_HEADERS }), 422);
      expectProblem(await h().request('POST', `${wo}/${made.id}/notes`, { raw, headers: JSON_HEADERS }), 422);
    }
    expect((await h().get(`${wo}/${made.id}`)).body).toEqual(made);
  });

  it('422 naming every offending field at once: wrong types, unknown fields, nulls, missing required fields', async () => {
    expectProblem(
      await h().post(wo, { department_id: 'one', work_order_type_id: 1.5, priority: 'high', colour: 'red', status: null }),
      422,
      ['department_id', 'work_order_type_id', 'work_order_type_group_id', 'priority', 'colour', 'status'],
    );
    expectProblem(await h().post(wo, {}), 422, ['department_id', 'work_order_type_id', 'work_order_type_group_id']);
    expectProblem(await h().post(wo, { ...WORK_ORDER, department_id: null }), 422, ['department_id']);
    expectProblem(await h().post(wo, { ...WORK_ORDER, description: 5, service_request_id: '1' }), 422, [
      'description',
      'service_request_id',
    ]);
    expectProblem(await h().post(wo, { ...WORK_ORDER, priority: true }), 422, ['priority']);
    expectProblem(await h().post(wo, { ...WORK_ORDER, priority: 2 ** 53 }), 422, ['priority']);
    expectProblem(await h().post(wo, { ...WORK_ORDER, priority: [1] }), 422, ['priority']);
    expectProblem(await h().post(wo, { ...WORK_ORDER, description: { text: 'x' } }), 422, ['description']);
    expectProblem(await h().post(`${M}/service_requests`, { description: null }), 422, ['description']);
  });

  it('unknown fields are refused whatever their name, prototype names included', async () => {
    for (const name of ['colour', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'Department_id', '']) {
      const raw = JSON.stringify(WORK_ORDER).slice(0, -1) + `,${JSON.stringify(name)}: 1}`;
      expectProblem(await h().request('POST', wo, { raw, headers: JSON_HEADERS }), 422, [name]);
    }
    expectProblem(await h().post(wo, { ...WORK_ORDER, colour: 1, size: 2, constructor: 3 }), 422, ['colour', 'size', 'constructor']);
    const made = await makeWorkOrder(h());
    expectProblem(await h().patch(`${wo}/${made.id}`, { colour: 'red', size: 2 }), 422, ['colour', 'size']);
    expectProblem(await h().put(`${wo}/${made.id}`, { ...WORK_ORDER, colour: 'red' }), 422, ['colour']);
  });

  it('PUT needs the required fields; PATCH does not, but refuses null in a non-nullable field', async () => {
    const made = await makeWorkOrder(h());
    expectProblem(await h().put(`${wo}/${made.id}`, { priority: 1 }), 422, [
      'department_id',
      'work_order_type_id',
      'work_order_type_group_id',
    ]);
    expectProblem(await h().patch(`${wo}/${made.id}`, { status: null, department_id: null }), 422, ['status', 'department_id']);
    const ok = await h().patch(`${wo}/${made.id}`, { priority: null, description: null });
    expect(ok.status, ok.text).toBe(200);
    expect((await h().get(`${wo}/${made.id}`)).body).toEqual(ok.body);
  });

  it('strings longer than maxLength are 422; maxLength counts characters, not bytes', async () => {
    expectProblem(await h().post(wo, { ...WORK_ORDER, status: 'x'.repeat(65) }), 422, ['status']);
    expectProblem(await h().post(`${M}/service_requests`, { description: 'd', status: 'y'.repeat(65) }), 422, ['status']);
    const max = await h().post(wo, { ...WORK_ORDER, status: '🔧'.repeat(64) });
    expect(max.status, max.text).toBe(201);
    expect(max.body.status).toBe('🔧'.repeat(64));
    expectProblem(await h().patch(`${wo}/${max.body.id}`, { status: 'é'.repeat(65) }), 422, ['status']);
  });

  it('strings are kept exactly as sent, or refused when no database can keep them', async () => {
    const text = 'Ünïcødé 🔧 "quotes" \\ back\nslash\ttab';
    const r = await h().post(wo, { ...WORK_ORDER, description: text });
    expect(r.status, r.text).toBe(201);
    expect((await h().get(`${wo}/${r.body.id}`)).body.description).toBe(text);
    expectProblem(await h().post(wo, { ...WORK_ORDER, description: 'a\u0000b' }), 422, ['description']);
    const lone = JSON.stringify(WORK_ORDER).slice(0, -1) + ',"description":"\\ud800x"}';
    expectProblem(await h().request('POST', wo, { raw: lone, headers: JSON_HEADERS }), 422, ['description']);
  });

  it('system fields are 422 on POST, whatever their value', async () => {
    const made = await makeWorkOrder(h());
    expectProblem(await h().post(wo, { ...WORK_ORDER, id: made.id, created: made.created, updated: made.updated, deleted: false }), 422, [
      'id',
      'created',
      'updated',
      'deleted',
    ]);
    expectProblem(await h().post(`${wo}/${made.id}/notes`, { note: 'x', id: 1 }), 422, ['id']);
  });

  it('system fields on PUT and PATCH: the current value is accepted, another value is 422', async () => {
    const made = await makeWorkOrder(h());
    const url = `${wo}/${made.id}`;
    const same = await h().patch(url, { id: made.id, created: made.created, deleted: false, priority: 3 });
    expect(same.status, same.text).toBe(200);
    const current = same.body;
    expectProblem(await h().patch(url, { id: made.id + 1000 }), 422, ['id']);
    expectProblem(await h().patch(url, { created: '1999-01-01' }), 422, ['created']);
    expectProblem(await h().patch(url, { deleted: true }), 422, ['deleted']);
    expectProblem(await h().patch(url, { updated: '1999-01-01T00:00:00.000Z' }), 422, ['updated']);
    expectProblem(await h().put(url, { ...current, id: 'x', deleted: null }), 422, ['id', 'deleted']);
    const back = await h().put(url, current);
    expect(back.status, back.text).toBe(200);
    expect((await h().get(url)).body).toMatchObject({ ...current, updated: back.body.updated });
  });

  it('a wrong system field is reported together with the other problems of the body', async () => {
    const made = await makeWorkOrder(h());
    const url = `${wo}/${made.id}`;
    expectProblem(await h().put(url, { ...WORK_ORDER, id: made.id + 1000, priority: 'x' }), 422, ['id', 'priority']);
    expectProblem(await h().patch(url, { deleted: true, colour: 'red' }), 422, ['deleted', 'colour']);
    expectProblem(await h().post(`${M}/notes`, { work_order_id: 987654, note: 5 }), 422, ['work_order_id', 'note']);
    expect((await h().get(url)).body).toEqual(made);
  });

  it('400 for query parameters on POST, PUT, PATCH and DELETE; $deleted is for GET only', async () => {
    const made = await makeWorkOrder(h());
    const url = `${wo}/${made.id}`;
    expectProblem(await h().request('POST', `${wo}?colour=red`, { body: WORK_ORDER }), 400, ['colour']);
    expectProblem(await h().request('POST', `${wo}?$deleted=true`, { body: WORK_ORDER }), 400, ['$deleted']);
    expectProblem(await h().request('PATCH', `${url}?$deleted=true`, { body: { priority: 1 } }), 400, ['$deleted']);
    expectProblem(await h().request('PUT', `${url}?x=1`, { body: WORK_ORDER }), 400, ['x']);
    expectProblem(await h().request('DELETE', `${url}?x=1`), 400, ['x']);
    expectProblem(await h().request('POST', `${url}/notes?x=1`, { body: { note: 'n' } }), 400, ['x']);
    expectProblem(await h().get(`${url}?x=1`), 400, ['x']);
    expectProblem(await h().get(`${url}?$deleted=maybe`), 400, ['$deleted']);
    expect((await h().get(url)).body).toEqual(made);
    expect((await h().get(`${wo}?id=${made.id}`)).body).toEqual([made]);
  });
});
