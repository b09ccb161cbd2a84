import type { Result } from '../errors.ts';
import { Lru } from '../lru.ts';
import type { Resource } from '../registry.ts';
import { parseQuery } from './parse.ts';
import { resolveQuery, type ResolvedQuery } from './resolve.ts';

/** Query texts kept per collection, the most recently used. */
const KEPT = 500;

const kept = new WeakMap<Resource, Lru<ResolvedQuery>>();

/**
 * A list's query string (as sent, without `?`) parsed and resolved against `resource`: the same
 * as resolveQuery of parseQuery. Equal searches are sent again and again, so a query without
 * `$cursor` is resolved once per text and kept, frozen, the same object for every request that
 * sends it (BENCHMARKS.md, "HTTP hot paths"); a cursor's pages each send their own.
 */
export function resolveQueryText(text: string, resource: Resource): Result<ResolvedQuery> {
  const known = kept.get(resource)?.get(text);
  if (known) return { value: known };
  const resolved = resolveQuery(parseQuery(new URLSearchParams(text)), resource);
  if ('value' in resolved && resolved.value.cursor === undefined) {
    let texts = kept.get(resource);
    if (!texts) kept.set(resource, (texts = new Lru(KEPT)));
    texts.set(text, deepFreeze(resolved.value));
  }
  return resolved;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
