import { describe, expect, it } from 'vitest';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { EngineError, valueOf } from '../errors.ts';
import { createRegistry } from '../registry.ts';
import { bodySchemas, checkBody, fieldProblems, type BodySchema } from './body.ts';

const registry = createRegistry([workOrders, notes, serviceRequests]);
const wo = bodySchemas(registry.get('work_orders')!);
const MIN = { department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3 };

/** A body's value, or its problems thrown as one error, as an operation answers them. */
const parseBody = <T>(schema: BodySchema<T>, body: unknown): T => valueOf(checkBody(schema, body));

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    expect((e as EngineError).status).toBe(422);
    return (e as EngineError).errors.map((x) => ('field' in x ? x.field : 'parameter' in x ? x.parameter : x.header)).sort();
  }
  throw new Error('expected a problem');
};

describe('body schemas', () => {
  it('create fills defaults and nulls for left-out optional fields', () => {
    expect(parseBody(wo.create, MIN)).toEqual({ ...MIN, priority: null, status: 'open', description: null, service_request_id: null });
  });

  it('replace fills defaults too; patch leaves out what was not sent', () => {
    expect(parseBody(wo.replace, MIN)).toMatchObject({ priority: null, status: 'open' });
    expect(parseBody(wo.patch, { priority: 2 })).toEqual({ priority: 2 });
    expect(parseBody(wo.patch, {})).toEqual({});
  });

  const CREATE_BAD: [string, unknown, string[]][] = [
    ['missing required fields', {}, ['department_id', 'work_order_type_group_id', 'work_order_type_id']],
    ['wrong types', { ...MIN, priority: '1', description: 1 }, ['description', 'priority']],
    ['null in non-nullable fields', { ...MIN, department_id: null, status: null }, ['department_id', 'status']],
    ['a fraction', { ...MIN, priority: 1.5 }, ['priority']],
    ['an unsafe integer', { ...MIN, priority: 2 ** 53 }, ['priority']],
    ['unknown fields', { ...MIN, colour: 1, constructor: 2 }, ['colour', 'constructor']],
    ['system fields', { ...MIN, id: 1, created: '2024-01-01', updated: 'x', deleted: false }, ['created', 'deleted', 'id', 'updated']],
    ['a long status', { ...MIN, status: 'x'.repeat(65) }, ['status']],
    ['a NUL character', { ...MIN, description: 'a\u0000' }, ['description']],
    ['an unpaired surrogate', { ...MIN, description: '\udc00' }, ['description']],
  ];
  for (const [what, body, fields] of CREATE_BAD) {
    it(`create names every field for ${what}`, () => expect(fieldsOf(() => parseBody(wo.create, body))).toEqual(fields));
  }

  it('maxLength counts code points', () => {
    expect(parseBody(wo.create, { ...MIN, status: '🔧'.repeat(64) })).toMatchObject({ status: '🔧'.repeat(64) });
  });

  it('PUT and PATCH let system fields through for the operation to compare', () => {
    expect('value' in checkBody(wo.patch, { id: 5, updated: 'x' })).toBe(true);
    expect('value' in checkBody(wo.replace, { ...MIN, deleted: true })).toBe(true);
  });

  it('a body that is not a JSON object is refused outright, with no field to name', () => {
    for (const body of [null, [], [MIN], 'x', 1, true]) {
      for (const schema of [wo.create, wo.replace, wo.patch]) {
        const result = checkBody(schema, body);
        const error = 'error' in result ? result.error : undefined;
        expect(error).toBeInstanceOf(EngineError);
        expect(error?.message).toMatch(/must be a JSON object/);
        expect(() => fieldProblems(result)).toThrow(/must be a JSON object/);
      }
    }
  });

  it('checkBody returns the problems instead of throwing them, for the caller to add its own', () => {
    const r = checkBody(wo.patch, { priority: 'x', colour: 1 });
    expect('error' in r && r.error.status).toBe(422);
    expect(
      fieldProblems(r)
        .map((p) => ('field' in p ? p.field : ''))
        .sort(),
    ).toEqual(['colour', 'priority']);
    expect(fieldProblems(checkBody(wo.patch, { priority: 2 }))).toEqual([]);
  });
});
