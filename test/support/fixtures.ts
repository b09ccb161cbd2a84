import { expect } from 'vitest';
import { M, type Harness, type Reply } from './harness.ts';

/** The smallest valid work order. */
export const WORK_ORDER = { department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3 } as const;
export const SERVICE_REQUEST = { description: 'leaking tap' } as const;

export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Creates a record and returns it, failing the test with the answer when it is not a 201. */
export async function make(h: Harness, path: string, body: unknown): Promise<Record<string, any>> {
  const r = await h.post(path.startsWith('/') ? path : `${M}/${path}`, body);
  expect(r.status, r.text).toBe(201);
  return r.body;
}

export const makeWorkOrder = (h: Harness, extra: Record<string, unknown> = {}) => make(h, 'work_orders', { ...WORK_ORDER, ...extra });

export async function makeNote(h: Harness, workOrderId: number, note = 'a note'): Promise<Record<string, any>> {
  return make(h, `${M}/work_orders/${workOrderId}/notes`, { note });
}

/**
 * An RFC 9457 problem: the content type, the four members, the status; with `fields`, the
 * `errors` array names exactly those body fields (or query parameters, or headers), each with a message.
 */
export function expectProblem(r: Reply, status: number, fields?: readonly string[]): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  if (fields === undefined) return;
  const errors = r.body.errors as { field?: string; parameter?: string; header?: string; message: string }[];
  expect(Array.isArray(errors), r.text).toBe(true);
  for (const e of errors) expect(typeof e.message === 'string' && e.message.length > 0, r.text).toBe(true);
  expect(errors.map((e) => e.field ?? e.parameter ?? e.header).sort(), r.text).toEqual([...fields].sort());
}

/** Today's UTC date, read before and after a request (a request may straddle midnight). */
export const utcDate = () => new Date().toISOString().slice(0, 10);
