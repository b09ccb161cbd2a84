import { describe, expect, it } from 'vitest';
import { batchBody, createdAnswer, DELETED, responseOf, updatedAnswer } from './write-answer.ts';

const record = { id: 7, description: 'a "quoted" line\nand a second', priority: null };

describe('a write answer', () => {
  it('a batch body is the array a JSON.stringify of the entries would make, the records spliced as their writes made them', () => {
    const created = createdAnswer({ record, version: 1 }, '/v1/maintenance/work_orders');
    const updated = updatedAnswer({ record, version: 2, json: JSON.stringify(record) });
    const body = batchBody([created, updated, DELETED]);
    expect(body).toBe(
      JSON.stringify([
        { status: 201, body: record, location: '/v1/maintenance/work_orders/7', etag: '"1"' },
        { status: 200, body: record, etag: '"2"' },
        { status: 204 },
      ]),
    );
  });

  it('a Response: JSON or problem+json with a body, none without; Location, ETag and the replay mark when given', async () => {
    const created = responseOf(createdAnswer({ record, version: 3 }, '/c'), { 'x-rate': '1' }, true);
    expect(created.status).toBe(201);
    expect(Object.fromEntries(created.headers)).toEqual({
      'content-type': 'application/json',
      'x-rate': '1',
      location: '/c/7',
      etag: '"3"',
      'idempotency-replayed': 'true',
    });
    expect(await created.json()).toEqual(record);
    const refused = responseOf({ status: 412, body: '{"status":412}' }, {});
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    const deleted = responseOf(DELETED, { 'x-rate': '1' });
    expect([deleted.status, deleted.headers.get('content-type'), await deleted.text()]).toEqual([204, null, '']);
  });
});
