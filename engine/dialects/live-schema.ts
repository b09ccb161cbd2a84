import type { FieldKind } from '../define.ts';
import type { TenantDb } from './types.ts';

/** A column as the database has it now. */
export interface LiveColumn {
  readonly name: string;
  /** Its type as the database names it (for messages). */
  readonly type: string;
  /** The field kinds whose column has this type: on SQLite several kinds share one. */
  readonly kinds: readonly FieldKind[];
  readonly notNull: boolean;
}

/** A table as the database has it now: its columns (id too) and the names of its indexes. */
export interface LiveTable {
  readonly columns: ReadonlyMap<string, LiveColumn>;
  readonly indexes: ReadonlySet<string>;
}

/** Reads one table of a tenant; undefined when there is no such table. */
export type ReadLiveTable = (t: TenantDb, table: string) => Promise<LiveTable | undefined>;
