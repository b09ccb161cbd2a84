import type { Kysely } from 'kysely';
import { compiledOnce } from '../compiled-queries.ts';
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

// Compiled once: a keyed request runs both, and building a Kysely query costs more than running it.
const keptRow = compiledOnce<[string, string], Record<string, any>>((db, owner, key) =>
  db.selectFrom(TABLE).select(['fingerprint', 'status', 'body', 'location', 'etag', 'expires_at']).where('owner', '=', owner).where('key', '=', key).compile(),
);

export async function findKept(db: Kysely<any>, req: KeyedRequest): Promise<KeptRow | undefined> {
  const row = (await keptRow(db, req.owner, req.key)).rows[0];
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

type KeepArgs = [string, string, string, number, string, string | null, string | null, number];
const keepValues = (db: Kysely<any>, p: unknown[]) =>
  db.insertInto(TABLE).values({ owner: p[0], key: p[1], fingerprint: p[2], status: p[3], body: p[4], location: p[5], etag: p[6], expires_at: p[7] });
const keepRow = compiledOnce<KeepArgs>((db, ...p) => keepValues(db, p).compile());
const keepRowIfAbsent = compiledOnce<KeepArgs>((db, ...p) =>
  keepValues(db, p)
    .onConflict((oc) => oc.columns(['owner', 'key']).doNothing())
    .compile(),
);

/**
 * Keeps the answer. Inside the write's transaction this is the key's claim: it commits with the
 * write or not at all. `ifAbsent`: a key another request claimed meanwhile stays as it is.
 */
export async function keep(db: Kysely<any>, req: KeyedRequest, answer: KeptAnswer, expiresAt: number, ifAbsent = false): Promise<void> {
  const args: KeepArgs = [req.owner, req.key, req.fingerprint, answer.status, answer.body, answer.location ?? null, answer.etag ?? null, expiresAt];
  await (ifAbsent ? keepRowIfAbsent : keepRow)(db, ...args);
}

/** Removes the answers kept past their time: what keeps the table bounded. */
export async function sweep(db: Kysely<any>, now: number): Promise<void> {
  await db.deleteFrom(TABLE).where('expires_at', '<=', now).execute();
}
