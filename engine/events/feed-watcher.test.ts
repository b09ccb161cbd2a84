import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TenantDb } from '../dialects/types.ts';
import { TenantState } from '../tenant-state.ts';
import { feedWatcher, FeedWatcher, POLL_INTERVAL_MS } from './feed-watcher.ts';

/** A tenant whose feed's highest seq is `feed.highest`; counts the polls. */
function fakeTenant() {
  const feed = { highest: 0, polls: 0, fail: false };
  const tenant = {
    state: new TenantState(),
    events: {
      highest: async () => {
        feed.polls++;
        if (feed.fail) throw new Error('database gone');
        return feed.highest;
      },
    },
  } as unknown as TenantDb;
  return { tenant, feed };
}

describe('FeedWatcher', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('polls only while someone listens, and tells each listener when the feed rises', async () => {
    const { tenant, feed } = fakeTenant();
    const watcher = new FeedWatcher(tenant);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 4);
    expect(feed.polls).toBe(0);

    const a: number[] = [];
    const b: number[] = [];
    const stopA = watcher.listen((h) => a.push(h));
    const stopB = watcher.listen((h) => b.push(h));
    await vi.advanceTimersByTimeAsync(0);
    expect(a).toEqual([0]); // the first poll follows at once
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 2);
    expect(a).toEqual([0]); // no rise, no call
    feed.highest = 3;
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(a).toEqual([0, 3]);
    expect(b).toEqual([0, 3]);
    // Two listeners, one poll per interval.
    expect(feed.polls).toBe(4);

    stopA();
    feed.highest = 5;
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(a).toEqual([0, 3]);
    expect(b).toEqual([0, 3, 5]);
    stopB();
    const polls = feed.polls;
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 10);
    expect(feed.polls).toBe(polls);
    expect(watcher.listeners).toBe(0);
  });

  it('tells a listener that joins later the highest seq already known', async () => {
    const { tenant, feed } = fakeTenant();
    const watcher = new FeedWatcher(tenant);
    feed.highest = 7;
    const stop = watcher.listen(() => {});
    await vi.advanceTimersByTimeAsync(0);
    const late: number[] = [];
    const stopLate = watcher.listen((h) => late.push(h));
    await vi.advanceTimersByTimeAsync(0);
    expect(late).toEqual([7]);
    stop();
    stopLate();
  });

  it('goes on polling after a failed poll', async () => {
    const { tenant, feed } = fakeTenant();
    const watcher = new FeedWatcher(tenant);
    const seen: number[] = [];
    feed.fail = true;
    const stop = watcher.listen((h) => seen.push(h));
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 2);
    expect(seen).toEqual([]);
    feed.fail = false;
    feed.highest = 2;
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(seen).toEqual([2]);
    stop();
  });

  it('is one per tenant database', () => {
    const { tenant } = fakeTenant();
    expect(feedWatcher(tenant)).toBe(feedWatcher({ ...tenant }));
    expect(feedWatcher(tenant)).not.toBe(feedWatcher(fakeTenant().tenant));
  });
});
