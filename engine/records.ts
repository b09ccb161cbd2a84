import type { Dialect } from './dialects/types.ts';
import type { Resource } from './registry.ts';
import { VERSION_COLUMN } from './schema/table.ts';

export type ApiRecord = Record<string, unknown>;

/**
 * The version of the row a record was made from (its ETag's source), kept beside the record
 * rather than in it: the version is never a field.
 */
const VERSION = Symbol('version');
export const versionOf = (record: ApiRecord): number | undefined => (record as { [VERSION]?: number })[VERSION];

/**
 * A record's JSON text, kept beside it by the write that made it for its event (keepJson), so
 * its answer does not make it again: in a property no one enumerates, as the version (a WeakMap
 * entry a write cost the garbage collector more than the JSON: BENCHMARKS.md).
 */
const JSON_TEXT = Symbol('json');

/** JSON.stringify(record), made once per write: the text kept beside it, or made now. */
export const recordJson = (record: ApiRecord): string => (record as { [JSON_TEXT]?: string })[JSON_TEXT] ?? JSON.stringify(record);

/** Keeps `json`, which must be JSON.stringify(record), beside a record that no one changes afterwards. */
export function keepJson(record: ApiRecord, json: string): void {
  if (!(JSON_TEXT in record)) Object.defineProperty(record, JSON_TEXT, { value: json });
}

/** A row as the API shows it: every field present, `null` when empty. */
export function toRecord(resource: Resource, dialect: Dialect, row: Record<string, unknown>): ApiRecord {
  const out: ApiRecord = {};
  for (const name of resource.fieldNames) out[name] = dialect.decode(resource.fields[name]!.kind, row[name]);
  const version = row[VERSION_COLUMN];
  if (version !== undefined && version !== null) Object.defineProperty(out, VERSION, { value: Number(version) });
  return out;
}

/** API values into column values. */
export function toRow(resource: Resource, dialect: Dialect, values: ApiRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const f = resource.fields[name];
    if (f) out[name] = value === null ? null : dialect.encode(f.kind, value);
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
