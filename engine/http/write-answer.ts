import type { KeptAnswer } from '../idempotency/index.ts';
import { jsonOf, type Written } from '../records.ts';
import { etagOf } from './conditional.ts';
import { joinHeaders } from './headers.ts';

/** A write's answer, whether sent alone or as an entry of a batch's: its status, the record's JSON text, Location and ETag. */
export interface WriteAnswer {
  readonly status: number;
  readonly body?: string | undefined;
  readonly location?: string | undefined;
  readonly etag?: string | undefined;
}

/**
 * A write's answer, as sent and as kept for its Idempotency-Key: the record's JSON (the text its
 * write made for its event, when it did: jsonOf), its Location when given, the ETag of its version.
 */
const answerOf = (status: number, written: Written, location?: string): KeptAnswer => ({
  status,
  body: jsonOf(written),
  location,
  etag: etagOf(written.version),
});

/** 201: the record, its Location under the collection's path and its ETag. */
export const createdAnswer = (written: Written, collectionPath: string): KeptAnswer =>
  answerOf(201, written, `${collectionPath}/${written.record.id}`);

/** 200 to a PUT or PATCH: the record and its new ETag. */
export const updatedAnswer = (written: Written): KeptAnswer => answerOf(200, written);

/** 204 to a DELETE. */
export const DELETED: WriteAnswer = { status: 204 };

const JSON_TYPE = { 'content-type': 'application/json' };
const PROBLEM_TYPE = { 'content-type': 'application/problem+json' };
const REPLAYED = { 'idempotency-replayed': 'true' };

/** The answer as a Response, with the caller's headers; `replayed` when it is one kept for an Idempotency-Key. */
export function responseOf(answer: WriteAnswer, headers: Readonly<Record<string, string>>, replayed = false): Response {
  const type = answer.body === undefined ? undefined : answer.status >= 400 ? PROBLEM_TYPE : JSON_TYPE;
  const out = joinHeaders(type, headers, replayed ? REPLAYED : undefined);
  if (answer.location !== undefined) out.location = answer.location;
  if (answer.etag !== undefined) out.etag = answer.etag;
  return new Response(answer.body ?? null, { status: answer.status, headers: out });
}

/** A batch's answers as its body's array; each record's JSON text is spliced in as its write made it, not made again. */
export function batchBody(answers: readonly WriteAnswer[]): string {
  return `[${answers.map(entryJson).join(',')}]`;
}

function entryJson(answer: WriteAnswer): string {
  let json = `{"status":${answer.status}`;
  if (answer.body !== undefined) json += `,"body":${answer.body}`;
  if (answer.location !== undefined) json += `,"location":${JSON.stringify(answer.location)}`;
  if (answer.etag !== undefined) json += `,"etag":${JSON.stringify(answer.etag)}`;
  return `${json}}`;
}
