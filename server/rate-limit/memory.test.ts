import { describe, expect, it } from 'vitest';
import { limitCaller } from '../../engine/rate-limit.ts';
import { memoryLimiter } from './memory.ts';

describe('memoryLimiter', () => {
  it('answers in the same turn, counting refused calls too', () => {
    let t = 1_000_000;
    const rl = memoryLimiter(2, 10, () => t);
    const states = [rl.hit('k'), rl.hit('k'), rl.hit('k'), rl.hit('k')];
    expect(states.every((s) => !(s instanceof Promise))).toBe(true);
    expect(states.map((s) => 'allowed' in s && s.allowed)).toEqual([true, true, false, false]);
    t += 9_500;
    expect(rl.hit('k')).toMatchObject({ allowed: false, remaining: 0, resetS: 1 });
    t += 500; // the window has ended: a new one starts with this call
    expect(rl.hit('k')).toEqual({ allowed: true, limit: 2, remaining: 1, resetS: 10, windowS: 10 });
  });

  it('drops ended windows once the map has doubled, so callers that stop do not pile up', () => {
    let t = 0;
    const rl = memoryLimiter(5, 1, () => t);
    for (let i = 0; i < 1024; i++) rl.hit(`addr:${i}`);
    expect(rl.size).toBe(1024);
    t += 1_000; // every window above has ended
    rl.hit('addr:new');
    expect(rl.size).toBe(1);
    for (let i = 0; i < 3000; i++) rl.hit(`live:${i}`); // live windows are kept, whatever the size
    expect(rl.size).toBe(3001);
  });

  it('limitCaller answers a memory window without a promise, and throws the 429 at once', () => {
    const rl = memoryLimiter(1, 60, () => 0);
    const caller = { tenant: {} as never, user: 'alice', can: () => true };
    const first = limitCaller(rl, 'alice', caller);
    expect(first).not.toBeInstanceOf(Promise);
    expect((first as typeof caller & { headers: Record<string, string> }).headers['x-ratelimit-remaining']).toBe('0');
    expect(() => limitCaller(rl, 'alice', caller)).toThrow(expect.objectContaining({ code: 'rate-limited' }));
  });
});
