import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokens } from './tokens.ts';

afterEach(() => vi.useRealTimers());

describe('tokens', () => {
  const claims = { sub: 'admin', client_db: 'demo.main', key_id: 'abc123' };

  it('verifies a token again from the cache, and not after its exp', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const tokens = createTokens(async () => 's'.repeat(40), 60);
    const token = await tokens.sign(claims);
    expect(await tokens.verify(token)).toEqual(claims);
    expect(await tokens.verify(token)).toEqual(claims); // the cached path
    vi.setSystemTime(Date.now() + 61_000);
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it('never caches a token that failed', async () => {
    const tokens = createTokens(async () => 's'.repeat(40), 60);
    const token = await tokens.sign(claims);
    const tampered = token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA');
    expect(await tokens.verify(tampered)).toBeUndefined();
    expect(await tokens.verify(tampered)).toBeUndefined();
    const other = createTokens(async () => 't'.repeat(40), 60);
    expect(await other.verify(token)).toBeUndefined();
  });
});
