import { EngineError, type Result } from '../errors.ts';

/**
 * Conditional requests (RFC 9110 section 13, SPEC 10): a record's ETag is made from its version
 * (engine/schema/table.ts VERSION_COLUMN), never from a field of the record.
 */

/** The strong ETag of a record at this version. */
export const etagOf = (version: unknown): string => `"${Number(version)}"`;

/** What an `If-Match` or `If-None-Match` header asks: any current record (`*`), or one of these tags. */
export type Condition = { readonly any: true } | { readonly any: false; readonly tags: readonly EntityTag[] };

export interface EntityTag {
  /** The tag as sent, quotes included, without `W/`. */
  readonly opaque: string;
  readonly weak: boolean;
}

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text
const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/** The header's condition, undefined when it was not sent, or a 400 naming the header. */
export function parseCondition(header: 'If-Match' | 'If-None-Match', value: string | null): Result<Condition | undefined> {
  if (value === null) return { value: undefined };
  if (value.trim() === '*') return { value: { any: true } };
  const tags: EntityTag[] = [];
  for (const part of value.split(',')) {
    const item = part.trim();
    if (item === '') continue; // a list may hold empty elements (RFC 9110 5.6.1)
    const m = ENTITY_TAG.exec(item);
    // The item in backquotes: in double quotes, an unquoted 8 would read as the tag "8".
    if (!m)
      return malformed(
        header,
        `\`${item.slice(0, 40)}\` is not an entity tag: send "*" or quoted tags like "3" (the quotes are part of the tag), separated by commas`,
      );
    tags.push({ opaque: m[2]!, weak: m[1] !== undefined });
  }
  if (tags.length === 0) return malformed(header, 'send "*" or one or more quoted entity tags');
  return { value: { any: false, tags } };
}

const malformed = (header: string, message: string): Result<never> => ({
  error: new EngineError('invalid-request', `The ${header} header is malformed.`, [{ header, message }]),
});

/** `If-Match`: strong comparison, so a weak tag never matches. */
export const ifMatchHolds = (c: Condition, etag: string): boolean => c.any || c.tags.some((t) => !t.weak && t.opaque === etag);

/** `If-None-Match`: weak comparison (RFC 9110 13.1.2); true when the tag matches, i.e. 304. */
export const noneMatchMatches = (c: Condition, etag: string): boolean => c.any || c.tags.some((t) => t.opaque === etag);

/** A write refused by If-Match: 412 with the record's current ETag. */
export const preconditionFailed = (etag: string) =>
  new EngineError('precondition-failed', 'The record has changed since the If-Match tag was taken: read it again.', [], { etag });

/** `Last-Modified` of a record: its `updated` as an HTTP date (one-second resolution). */
export const lastModifiedOf = (updated: string): string => new Date(updated).toUTCString();

/**
 * Whether `If-Modified-Since` makes a read a 304: the record was not changed after the date,
 * compared in whole seconds (RFC 9110 13.1.3). A date that does not parse is ignored, as the RFC says.
 */
export function notModifiedSince(header: string | null, updated: string): boolean {
  if (header === null) return false;
  const since = Date.parse(header);
  if (Number.isNaN(since)) return false;
  return Math.floor(Date.parse(updated) / 1000) <= Math.floor(since / 1000);
}
