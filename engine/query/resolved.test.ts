import { describe, expect, it } from 'vitest';
import { valueOf } from '../errors.ts';
import { createRegistry } from '../registry.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { parseQuery } from './parse.ts';
import { resolveQuery } from './resolve.ts';
import { resolveQueryText } from './resolved.ts';

const resource = createRegistry([workOrders, serviceRequests]).get('work_orders')!;

describe('resolveQueryText: a query resolved once per text', () => {
  it.each(['department_id=7&status=open', '$orderBy=priority:desc&$limit=20', '', '$cursor=abcdefghijklmnop&$page=2', 'nope=1'])(
    'answers what resolveQuery of parseQuery answers: %s',
    (text) => {
      expect(resolveQueryText(text, resource)).toEqual(resolveQuery(parseQuery(new URLSearchParams(text)), resource));
    },
  );

  it('keeps a search without $cursor: the same frozen object for each request that sends its text', () => {
    const first = valueOf(resolveQueryText('department_id=3&priority:gte=2', resource));
    expect(valueOf(resolveQueryText('department_id=3&priority:gte=2', resource))).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.filters[0]) && Object.isFrozen(first.filters[0]!.values)).toBe(true);
  });

  it('keeps neither a cursor page nor a refused query', () => {
    const page = '$cursor=abcdefghijklmnop&$page=3';
    expect(valueOf(resolveQueryText(page, resource))).not.toBe(valueOf(resolveQueryText(page, resource)));
    expect(Object.isFrozen(valueOf(resolveQueryText(page, resource)))).toBe(false);
    expect('error' in resolveQueryText('department_id=x', resource)).toBe(true);
  });
});
