import { describe, expect, it } from 'vitest';
import * as client from '../../client/index.ts';
import { errorOf } from '../../client/errors.ts';

describe('the typed errors', () => {
  it.each([
    [400, 'BadRequest'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [409, 'Conflict'],
    [410, 'Gone'],
    [412, 'PreconditionFailed'],
    [422, 'Unprocessable'],
    [428, 'PreconditionRequired'],
    [429, 'TooManyRequests'],
    [503, 'ServiceUnavailable'],
  ] as const)('%i is a %s: an ApiError of that name, with the problem details', async (status, name) => {
    const problem = { type: 'urn:x:problem:y', title: 'T', status, detail: `detail ${status}` };
    const error = await errorOf(new Response(JSON.stringify(problem), { status, headers: { etag: '"7"' } }));
    const Kind = client[name];
    expect(error).toBeInstanceOf(Kind);
    expect(error).toBeInstanceOf(client.ApiError);
    expect([error.name, Kind.name, error.status, error.message]).toEqual([name, name, status, `detail ${status}`]);
    expect(error.problem).toEqual(problem);
    const others = Object.values(client).filter((v) => typeof v === 'function' && v.prototype instanceof client.ApiError && v !== Kind);
    expect(others.length).toBe(10);
    for (const other of others) expect(error).not.toBeInstanceOf(other);
  });

  it('another status is a plain ApiError, and a body that is not JSON becomes the detail', async () => {
    const error = await errorOf(new Response('teapot', { status: 418, statusText: "I'm a teapot" }));
    expect(error.constructor).toBe(client.ApiError);
    expect(error.problem).toEqual({ status: 418, title: "I'm a teapot", detail: 'teapot' });
  });
});

describe('the typed errors as types', () => {
  it('each name annotates a value too (npm run typecheck fails otherwise)', () => {
    const statusOf = (e: client.NotFound | client.Conflict | client.TooManyRequests): number => e.status;
    expect(statusOf(new client.NotFound(404, {}, new Headers()))).toBe(404);
  });
});
