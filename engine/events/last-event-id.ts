import { EngineError, type Result } from '../errors.ts';
import { WHOLE } from './feed-query.ts';

export const LAST_EVENT_ID = 'Last-Event-ID';

/**
 * The position a reconnecting event stream resumes from: its `Last-Event-ID` header (a seq, as
 * the stream sent it in `id:`), checked like `$after`. Absent: undefined.
 */
export function lastEventId(value: string | null): Result<number | undefined> {
  if (value === null) return { value: undefined };
  const v = value.trim();
  if (WHOLE.test(v)) return { value: Number(v) };
  return {
    error: new EngineError('invalid-query', 'The query is not valid: see errors.', [
      { header: LAST_EVENT_ID, message: `${LAST_EVENT_ID} must be a whole number from 0 (the id of the last event received)` },
    ]),
  };
}
