import { describe, expect, it } from 'vitest';
import { requestSlot } from './request-slot.ts';

describe('requestSlot', () => {
  it('keeps one value per request and slot, invisible to the request itself', () => {
    const a = requestSlot<string>('a');
    const b = requestSlot<string>('a'); // same name, still its own slot
    const r1 = new Request('http://x/1');
    const r2 = new Request('http://x/2');
    expect(a.get(r1)).toBeUndefined();
    a.set(r1, 'one');
    b.set(r1, 'other');
    expect(a.get(r1)).toBe('one');
    expect(b.get(r1)).toBe('other');
    expect(a.get(r2)).toBeUndefined();
    expect(Object.keys(r1)).toEqual([]);
    expect(JSON.stringify(Object.getOwnPropertyNames(r1))).toBe('[]');
  });

  it('works on a request that takes no properties', () => {
    const slot = requestSlot<number>('n');
    const frozen = Object.freeze(new Request('http://x/'));
    slot.set(frozen, 7);
    expect(slot.get(frozen)).toBe(7);
    expect(slot.get(new Request('http://x/'))).toBeUndefined();
  });
});
