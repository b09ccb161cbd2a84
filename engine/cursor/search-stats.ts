import type { TenantDb } from '../dialects/types.ts';
import { Lru } from '../lru.ts';

/** What the snapshots of one search taught: the strategy chooser's memory of it (strategy.ts). */
export interface SearchFacts {
  /** When its ids were last found not ranged (the engine's clock, epoch ms). */
  unrangedAt?: number;
  /** Its last snapshot had fewer ids than its store's `ascendingFrom`: packed in SQL next time. */
  small?: boolean;
  /** Its ids include one that ascending deltas do not take: packed in SQL from now on. */
  wide?: boolean;
}

/**
 * What a tenant's snapshots learned, kept in the tenant's state (TenantState): the facts of its
 * recent searches, by search key, and the width each table's ids were last packed at (a packing
 * statement's first guess). The chooser (strategy.ts) is the one reader and writer of the facts.
 */
export class SearchStats {
  readonly #facts = new Lru<SearchFacts>(500);
  readonly #widths = new Map<string, number>();

  /** The facts of a search (an empty object when it taught nothing yet). */
  of(searchKey: string): Readonly<SearchFacts> {
    return this.#facts.get(searchKey) ?? NONE;
  }

  /** Adds to a search's facts (`undefined` removes one). */
  learn(searchKey: string, facts: SearchFacts): void {
    const next = { ...this.#facts.get(searchKey), ...facts };
    for (const k of Object.keys(next) as (keyof SearchFacts)[]) if (next[k] === undefined) delete next[k];
    this.#facts.set(searchKey, next);
  }

  /** The width `table`'s ids were last packed at; undefined when none was yet. */
  width(table: string): number | undefined {
    return this.#widths.get(table);
  }

  setWidth(table: string, width: number): void {
    this.#widths.set(table, width);
  }
}

const NONE: Readonly<SearchFacts> = Object.freeze({});

/** The slot of a tenant's state (TenantState) holding its SearchStats. */
const SEARCH_STATS = {};

export const searchStatsOf = (t: TenantDb): SearchStats => t.state.get(SEARCH_STATS, () => new SearchStats());
