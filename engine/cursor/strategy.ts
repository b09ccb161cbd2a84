import type { TenantDb } from '../dialects/types.ts';
import { searchStatsOf, type SearchFacts } from './search-stats.ts';
import { readsTableInIdOrder } from './snapshot-sql.ts';
import type { Search, Snapshot, SnapshotArgs, SnapshotStore } from './snapshot-store.ts';

/**
 * How a new search's snapshot is taken (docs/cursors.md has the decision table). `reference` is
 * the specification: every id the search matches, read in its order and packed at a fixed width,
 * at once. Each other strategy is an optimization that gives the same ids page by page
 * (test/pagination/strategies.test.ts holds each to the reference):
 *
 * - `ranged`: a whole table in id order as its ends and the few ids missing between them;
 * - `lazy`: page 1 now, the ids made as of the feed's seq by the first later request (lazy.ts);
 * - `ascending`: ids in id order read as the database's plan gives them, put in order in the
 *   application and written as ascending deltas (deltas.ts);
 * - `ordered`: ids read in the search's order by the database, written as its store packs best.
 */
export const STRATEGIES = ['reference', 'ranged', 'lazy', 'ascending', 'ordered'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** How long a search whose ids were not ranged skips trying again (deletions may have been few since). */
const RANGED_RETRY_MS = 60_000;

const inIdOrder = ({ search: { order } }: { search: Pick<Search, 'order'> }) => order.field === 'id' && order.direction === 'asc';

/**
 * The strategies to try, in order, for a search with these facts at `now`: each but the last may
 * not fit the search's ids (SnapshotStore.take answers undefined); the last always does.
 */
export function strategiesFor(
  args: Pick<SnapshotArgs, 'start'> & { search: Pick<Search, 'filters' | 'scope' | 'order'> },
  facts: Readonly<SearchFacts>,
  now: number,
): Strategy[] {
  const tries: Strategy[] = [];
  // A ranged snapshot costs about the COUNT a lazy one reads anyway, and needs no making later.
  if (readsTableInIdOrder(args.search) && (facts.unrangedAt === undefined || now - facts.unrangedAt >= RANGED_RETRY_MS))
    tries.push('ranged');
  // Page 1 costs its COUNT and page 1; a search that starts further on needs its ids now.
  if (args.start === 0) return [...tries, 'lazy'];
  if (inIdOrder(args) && !facts.small && !facts.wide) tries.push('ascending');
  return [...tries, 'ordered'];
}

/** What a strategy's outcome teaches about its search (undefined: nothing new). */
export function lessonOf(
  strategy: Strategy,
  snap: Snapshot | undefined,
  facts: Readonly<SearchFacts>,
  ascendingFrom: number,
  now: number,
): SearchFacts | undefined {
  if (strategy === 'ranged') return snap ? undefined : { unrangedAt: now };
  if (strategy === 'ascending') return snap ? (snap.total < ascendingFrom ? { small: true } : undefined) : { wide: true };
  // A search's size changes slowly: tried as ascending again once it has grown.
  if (strategy === 'ordered' && facts.small && snap && snap.total >= ascendingFrom) return { small: undefined };
  return undefined;
}

/** A new search's snapshot, by the first strategy that fits it; what each taught is kept in the tenant's SearchStats. */
export async function takeSnapshot(t: TenantDb, store: SnapshotStore, args: SnapshotArgs, now: number): Promise<Snapshot> {
  const stats = searchStatsOf(t);
  for (const strategy of strategiesFor(args, stats.of(args.searchKey), now)) {
    const snap = await store.take(t, args, strategy);
    const lesson = lessonOf(strategy, snap, stats.of(args.searchKey), store.ascendingFrom, now);
    if (lesson) stats.learn(args.searchKey, lesson);
    if (snap) return snap;
  }
  throw new Error(`no snapshot strategy fit the search ${args.searchKey}`);
}
