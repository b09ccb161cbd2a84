import type { Dialect } from '../dialects/types.ts';
import type { EventSource } from '../events/event-log.ts';
import type { Resource } from '../registry.ts';
import { recordJsonOf } from './records-json.ts';

const sources = new WeakMap<Dialect, WeakMap<Resource, EventSource>>();

/**
 * Where a collection's events take their record from: its table, and a row of it as the JSON a
 * read answers (records-json.ts), byte for byte. One object per collection and database kind, by
 * which the append statements are compiled once.
 */
export function eventSourceOf(dialect: Dialect, resource: Resource): EventSource {
  let byResource = sources.get(dialect);
  if (!byResource) sources.set(dialect, (byResource = new WeakMap()));
  let source = byResource.get(resource);
  if (!source) byResource.set(resource, (source = { table: resource.name, recordJson: (alias) => recordJsonOf(dialect, resource, alias) }));
  return source;
}
