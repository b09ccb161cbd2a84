import type { Kysely } from 'kysely';
import type { KeyedRequest } from './key.ts';

/** An answer as kept for a key: what a replay sends again. */
export interface KeptAnswer {
  readonly status: number;
  /** The body's text (JSON or problem+json). */
  readonly body: string;
  readonly location?: string | undefined;
  readonly etag?: string | undefined;
}

const TABLE = 'mrs_idempotency';

export interface KeptRow extends KeptAnswer {
  readonly fingerprint: string;
  readonly expiresAt: number;
}

export async function findKept(db: Kysely<any>, req: KeyedRequest): Promise<KeptRow | undefined> {
  const row = await db
    .selectFrom(TABLE)
    .select(['fingerprint', 'status', 'body', 'location', 'etag', 'expires_at'])
    .where('owner', '=', req.owner)
    .where('key', '=', req.key)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    fingerprint: row.fingerprint,
    status: Number(row.status),
    body: row.body,
    location: row.location ?? undefined,
    etag: row.etag ?? undefined,
    expiresAt: Number(row.expires_at),
  };
}

export async function forget(db: Kysely<any>, req: KeyedRequest): Promise<void> {
  await db.deleteFrom(TABLE).where('owner', '=', req.owner).where('key', '=', req.key).execute();
}

/**
 * Keeps the answer. Inside the write's transaction this is the key's claim: it commits with the
 * write or not at all. `ifAbsent`: a key another request claimed meanwhile stays as it is.
 */
export async function keep(db: Kysely<any>, req: KeyedRequest, answer: KeptAnswer, expiresAt: number, ifAbsent = false): Promise<void> {
  const insert = db.insertInto(TABLE).values({
    owner: req.owner,
    key: req.key,
    fingerprint: req.fingerprint,
    status: answer.status,
    body: answer.body,
    location: answer.location ?? null,
    etag: answer.etag ?? null,
    expires_at: expiresAt,
  });
  await (ifAbsent ? insert.onConflict((oc) => oc.columns(['owner', 'key']).doNothing()) : insert).execute();
}

/** Removes the answers kept past their time: what keeps the table bounded. */
export async function sweep(db: Kysely<any>, now: number): Promise<void> {
  await db.deleteFrom(TABLE).where('expires_at', '<=', now).execute();
}
