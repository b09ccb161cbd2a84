import type { SqlFlavour } from './dialects/types.ts';
import type { Resource } from './registry.ts';
import { VERSION_COLUMN } from './schema/table.ts';

export type ApiRecord = Record<string, unknown>;

/**
 * A record as stored: its fields, and beside them (never among them) the version of its row,
 * the source of its ETag.
 */
export interface Stored {
  readonly record: ApiRecord;
  readonly version: number;
}

/** What a write answers: the record as stored, and its JSON text when the write made it for its event. */
export interface Written extends Stored {
  readonly json?: string | undefined;
}

/** A written record's JSON text: the one its write made, or made now. */
export const jsonOf = (written: Written): string => written.json ?? JSON.stringify(written.record);

/** A stored record with its JSON text made now, once, for its event and its answer. */
export const writtenOf = (stored: Stored): Required<Written> => ({
  record: stored.record,
  version: stored.version,
  json: JSON.stringify(stored.record),
});

/** A row (the system version column among its columns) as its record and version. */
export const storedOf = (resource: Resource, flavour: SqlFlavour, row: Record<string, unknown>): Stored => ({
  record: toRecord(resource, flavour, row),
  version: Number(row[VERSION_COLUMN]),
});

/** A row as the API shows it: every field present, `null` when empty. */
export function toRecord(resource: Resource, flavour: SqlFlavour, row: Record<string, unknown>): ApiRecord {
  const out: ApiRecord = {};
  for (const name of resource.fieldNames) out[name] = flavour.decode(resource.fields[name]!.kind, row[name]);
  return out;
}

/** API values into column values. */
export function toRow(resource: Resource, flavour: SqlFlavour, values: ApiRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const f = resource.fields[name];
    if (f) out[name] = value === null ? null : flavour.encode(f.kind, value);
  }
  return out;
}

/** Today's UTC date and the current instant, as the system fields hold them. */
export function now(): { date: string; timestamp: string } {
  const timestamp = new Date().toISOString();
  return { date: timestamp.slice(0, 10), timestamp };
}

/**
 * The `updated` stamp of a write to a record last stamped `previous`: now, or one millisecond
 * after `previous` when the clock has not moved past it, so every write changes `updated`.
 */
export function nextTimestamp(previous: unknown): string {
  const current = Date.now();
  const last = typeof previous === 'string' ? Date.parse(previous) : NaN;
  return new Date(Number.isNaN(last) || current > last ? current : last + 1).toISOString();
}
