import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, M, type Reply } from '../support/harness.ts';
import { makeNote, makeWorkOrder } from '../support/fixtures.ts';

const FIELDS = [
  'id',
  'created',
  'updated',
  'deleted',
  'department_id',
  'work_order_type_id',
  'work_order_type_group_id',
  'priority',
  'status',
  'description',
  'service_request_id',
  'work_order_id',
  'note',
  'colour',
  '__proto__',
  'constructor',
  '',
];

/** Values near the edges of every kind, and arbitrary JSON. */
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(null, 0, -1, 1, 2 ** 53, -(2 ** 53), 1e308, -0, 0.5, '', '\u0000', '\ud800', '2024-01-01', 'x'.repeat(65), [], {}),
);

/** Whole bodies: objects of known and unknown fields, objects close to valid ones, and any JSON. */
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 8 }),
  fc
    .record(
      { department_id: value, work_order_type_id: value, work_order_type_group_id: value, priority: value, note: value },
      { requiredKeys: [] },
    )
    .map((b) => ({ department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3, ...b })),
  fc.jsonValue({ maxDepth: 3 }),
);

/** The answer is a success, or a client error with a problem+json body: never a 500. */
function expectHandled(r: Reply, method: string, path: string, sent: unknown): void {
  const context = `${method} ${path} ${JSON.stringify(sent)} -> ${r.status} ${r.text.slice(0, 300)}`;
  expect([200, 201].includes(r.status) || (r.status >= 400 && r.status < 500), context).toBe(true);
  if (r.status >= 400) {
    expect(r.headers.get('content-type'), context).toMatch(/^application\/problem\+json/);
    expect(r.body, context).toMatchObject({
      status: r.status,
      type: expect.any(String),
      title: expect.any(String),
      detail: expect.any(String),
    });
  }
}

describeEachDatabase('random bodies never give a 500', (h) => {
  let woId: number;
  let noteId: number;
  beforeAll(async () => {
    woId = (await makeWorkOrder(h())).id;
    noteId = (await makeNote(h(), woId)).id;
  });

  const targets: [string, string, () => string][] = [
    ['POST', 'work_orders', () => `${M}/work_orders`],
    ['POST', 'notes', () => `${M}/notes`],
    ['POST', 'work_orders/{id}/notes', () => `${M}/work_orders/${woId}/notes`],
    ['PUT', 'work_orders/{id}', () => `${M}/work_orders/${woId}`],
    ['PATCH', 'work_orders/{id}', () => `${M}/work_orders/${woId}`],
    ['PUT', 'notes/{id}', () => `${M}/notes/${noteId}`],
    ['PATCH', 'service_requests/{id} (missing)', () => `${M}/service_requests/987654`],
  ];

  for (const [method, label, pathOf] of targets) {
    it(`${method} ${label}: a handled answer, and what is accepted reads back as answered`, async () => {
      await fc.assert(
        fc.asyncProperty(body, async (sent) => {
          const path = pathOf();
          const r = await h().request(method, path, { body: sent });
          expectHandled(r, method, path, sent);
          if (r.status < 300) {
            const read = await h().get(r.status === 201 ? r.headers.get('location')! : path);
            expect(read.body).toEqual(r.body);
          }
        }),
        { numRuns: 80 },
      );
    });
  }

  it('random bytes as a body get a handled answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('POST', 'PUT', 'PATCH'), async (raw, method) => {
        const path = method === 'POST' ? `${M}/work_orders` : `${M}/work_orders/${woId}`;
        const r = await h().request(method, path, { raw, headers: { 'content-type': 'application/json' } });
        expectHandled(r, method, path, raw);
      }),
      { numRuns: 80 },
    );
  });
});
