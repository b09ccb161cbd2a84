import { EngineError, type ProblemItem } from '../errors.ts';
import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';

export function throwIfAny(problems: ProblemItem[]): void {
  if (problems.length) throw new EngineError('invalid-body', 'The body is not a valid record: see errors.', problems);
}

/** Only the writable fields of a parsed body (read-only ones were only there to be compared). */
export function writableValues(resource: Resource, body: ApiRecord): ApiRecord {
  return Object.fromEntries(resource.writable.filter((n) => body[n] !== undefined).map((n) => [n, body[n]]));
}
