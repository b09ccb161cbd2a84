import { sql, type CompiledQuery, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { compiledStatement } from '../compiled-queries.ts';
import { tableRef } from '../dialects/table-ref.ts';
import type { TenantDb } from '../dialects/types.ts';
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
const keptRow = compiledStatement<object, { owner: string; key: string }, Record<string, any>>('idempotency kept', (db, _shape, p) =>
  db
    .selectFrom(TABLE)
    .select(['fingerprint', 'status', 'body', 'location', 'etag', 'expires_at'])
    .where('owner', '=', p.owner)
    .where('key', '=', p.key),
);

export async function findKept(db: Kysely<any>, req: KeyedRequest): Promise<KeptRow | undefined> {
  const row = (await keptRow.run(db, {}, { owner: req.owner, key: req.key })).rows[0];
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

/** A kept answer's row as an INSERT's values. */
interface KeepValues {
  owner: string;
  key: string;
  fingerprint: string;
  status: number;
  body: string;
  location: string | null;
  etag: string | null;
  expires_at: number;
}

/** `ifAbsent`: a key another request claimed meanwhile stays as it is. */
const keepRow = compiledStatement<{ ifAbsent: boolean }, KeepValues>('idempotency keep', (db, { ifAbsent }, p) => {
  const insert = db.insertInto(TABLE).values({
    owner: p.owner,
    key: p.key,
    fingerprint: p.fingerprint,
    status: p.status,
    body: p.body,
    location: p.location,
    etag: p.etag,
    expires_at: p.expires_at,
  });
  return ifAbsent ? insert.onConflict((oc) => oc.columns(['owner', 'key']).doNothing()) : insert;
});

const keepValues = (req: KeyedRequest, answer: KeptAnswer, expiresAt: number): KeepValues => ({
  owner: req.owner,
  key: req.key,
  fingerprint: req.fingerprint,
  status: answer.status,
  body: answer.body,
  location: answer.location ?? null,
  etag: answer.etag ?? null,
  expires_at: expiresAt,
});

/**
 * Keeps the answer. Inside the write's transaction this is the key's claim: it commits with the
 * write or not at all. `ifAbsent`: a key another request claimed meanwhile stays as it is.
 */
export async function keep(db: Kysely<any>, req: KeyedRequest, answer: KeptAnswer, expiresAt: number, ifAbsent = false): Promise<void> {
  await keepRow.run(db, { ifAbsent }, keepValues(req, answer, expiresAt));
}

/**
 * `keep`'s INSERT, compiled and not run: for a write whose handle runs it right after the write
 * (engine/sql/write-then.ts), where the key was found free by the write's own statement.
 */
export function keepQuery(db: Kysely<any>, req: KeyedRequest, answer: KeptAnswer, expiresAt: number): CompiledQuery {
  return keepRow.query(db, { ifAbsent: false }, keepValues(req, answer, expiresAt));
}

/**
 * Where a write may go only while no answer is kept for the key (expired or not: the transaction
 * path forgets expired ones), for a database whose writes of one key cannot interleave (SQLite's
 * one writer): the write's own statement checks it, so it needs no lookup before it.
 */
export const unclaimed = (t: TenantDb, owner: unknown, key: unknown): RawBuilder<boolean> =>
  sql<boolean>`not exists (select 1 from ${tableRef(t, TABLE)} where owner = ${owner} and key = ${key})`;

/** Removes the answers kept past their time: what keeps the table bounded. */
export async function sweep(db: Kysely<any>, now: number): Promise<void> {
  await db.deleteFrom(TABLE).where('expires_at', '<=', now).execute();
}

/**
 * A key to claim inside a write's own statement: the lock that marks it in flight, what the
 * request asked, and until when its answer is kept.
 */
export interface Claim extends KeyedRequest {
  readonly lock: string;
  readonly expiresAt: number;
}

/** The claim's values as a statement's parameters (or placeholders): `claimable` and `keepFrom` take them. */
export type ClaimParams = { readonly [K in keyof Claim]: unknown };

/**
 * Whether the statement may write: the key's lock taken without waiting, and no answer kept for
 * the key (expired or not: the transaction path forgets expired ones). The statement's snapshot
 * may predate a claim committed just before its lock was taken; then its own kept answer's
 * INSERT meets that claim's row and the whole statement fails, nothing written.
 */
export const claimable = (t: TenantDb, c: ClaimParams): RawBuilder<boolean> =>
  sql<boolean>`${t.locks.inStatement!(c.lock)} and ${unclaimed(t, c.owner, c.key)}`;

/**
 * The kept answer's INSERT, one per row of `from` (the statement's written row), the answer's
 * parts written from its columns; it returns them, what the request answers.
 */
export const keepFrom = (
  t: TenantDb,
  c: ClaimParams,
  from: string,
  answer: { status: unknown; body: Expression<string>; location: Expression<string>; etag: Expression<string> },
): RawBuilder<KeptAnswer> =>
  sql<KeptAnswer>`insert into ${tableRef(t, TABLE)} (owner, key, fingerprint, status, body, location, etag, expires_at)
    select ${c.owner}, ${c.key}, ${c.fingerprint}, ${answer.status}, ${answer.body}, ${answer.location}, ${answer.etag}, ${c.expiresAt} from ${sql.table(from)}
    returning status, body, location, etag`;
