import { describe, expect, it } from 'vitest';
import { isTransient, retryTransientOnce } from './transient.ts';

describe('retryTransientOnce', () => {
  it('runs again once after a transient error, never after another, and not a third time', async () => {
    const transient = Object.assign(new Error('gone'), { transient: true });
    let n = 0;
    expect(await retryTransientOnce(async () => (++n === 1 ? Promise.reject(transient) : n))).toBe(2);
    n = 0;
    await expect(retryTransientOnce(async () => (++n, Promise.reject(transient)))).rejects.toBe(transient);
    expect(n).toBe(2);
    n = 0;
    await expect(retryTransientOnce(async () => (++n, Promise.reject(new Error('other'))))).rejects.toThrow('other');
    expect(n).toBe(1);
    expect([isTransient(transient), isTransient({ transient: 'yes' }), isTransient(null)]).toEqual([true, false, false]);
  });
});
