import type { TenantDb } from '../dialects/types.ts';
import { OLD_EVENTS_PER_STATEMENT } from './event-sweep.ts';

/** How long the feed keeps events, and the clock it is measured by. */
export interface FeedSettings {
  readonly retentionMs: number;
  readonly now: () => number;
}

/** Sweeps of a tenant's feed are this far apart, at least (per process). */
const SWEEP_EVERY_MS = 60_000;
/** Statements a sweep runs at most: the sweep is bounded, the next one goes on. */
const STATEMENTS_PER_SWEEP = 10;

/**
 * Removes the tenant's events older than the retention, when its last sweep in this process is
 * a minute old: called from reads of the feed, never from writes, so retention costs a write
 * nothing. Each batch is one bounded statement (EventLog.sweep).
 */
export async function sweepIfDue(t: TenantDb, settings: FeedSettings): Promise<void> {
  const state = t.state.get(settings, () => ({ next: 0 }));
  const now = settings.now();
  if (now < state.next) return;
  state.next = now + SWEEP_EVERY_MS;
  const olderThan = new Date(now - settings.retentionMs).toISOString();
  for (let i = 0; i < STATEMENTS_PER_SWEEP; i++)
    if ((await t.events.sweep(t, olderThan, OLD_EVENTS_PER_STATEMENT)) < OLD_EVENTS_PER_STATEMENT) return;
}
