import type { Kysely } from 'kysely';
import { EngineError, valueOf, type ProblemItem } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { now, toRecord, toRow, type ApiRecord } from '../records.ts';
import { answerOf, keepQuery, type Claim, type KeptAnswer } from '../idempotency/store.ts';
import { insertLinkedThen, insertLinkedWithEvent, insertRow, insertRowClaimed, insertRows, insertRowsWithEvents, insertRowThen, insertRowUnclaimedThen, insertRowWithEvent } from '../sql/record-writes.ts';
import { writeThenOf, type WriteThen } from '../sql/write-then.ts';
import { checkBody, isPlainObject } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import { linksNamed, parentLinkProblems, sentLinks, throwIfAny } from './checks.ts';
import { inTransaction, notFound, loadRecord, type OperationContext, type ParentScope } from './context.ts';
import { appendEvent, createdFields, eventOf, eventTime } from './events.ts';

/** Under a parent path the link comes from the path; a different link in the body is a problem. */
function withPathLink(body: unknown, parent: ParentScope | undefined): { body: unknown; problems: ProblemItem[] } {
  if (!parent || !isPlainObject(body)) return { body, problems: [] };
  const sent = body[parent.field];
  if (sent === undefined) return { body: { ...body, [parent.field]: parent.id }, problems: [] };
  if (sent === parent.id) return { body, problems: [] };
  return {
    body: { ...body, [parent.field]: parent.id },
    problems: [{ field: parent.field, message: `must be ${parent.id}, the parent in the path, or left out` }],
  };
}

/**
 * Creates a record; under a parent path the parent link comes from the path. One transaction,
 * with its event.
 * Body problems and parent links naming no live record are reported together.
 */
export async function create(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  parent?: ParentScope,
): Promise<ApiRecord> {
  const linked = withPathLink(body, parent);
  const links = sentLinks(resource, linked.body);
  const plain = nothingToLookUp(resource, linked.body, parent);
  // Nothing to look up first, and a database that writes the record and its event in one
  // statement: that statement is the transaction (a statement is atomic).
  const { events } = ctx.tenant.dialect;
  if (plain && events.inStatement) {
    const record = await insertChecked(ctx.tenant.db, ctx, resource, linked, [], 'statement');
    events.written?.(ctx.tenant);
    return record;
  }
  // Or a database handle that runs the INSERT and then the event's statement, kept together,
  // without a transaction's savepoint and its release (engine/sql/write-then.ts).
  const writeThen = plain && events.appendQuery ? writeThenOf(ctx.tenant.db) : undefined;
  if (writeThen) return insertChecked(ctx.tenant.db, ctx, resource, linked, [], writeThen);
  // Parents to look up: the INSERT looks them up itself, when the body is valid. When it
  // inserts nothing (a parent missing or deleted), the transaction below says which.
  if (!plain) {
    const record = await insertLinked(ctx, resource, linked);
    if (record) return record;
  }
  // Otherwise its event goes in the same transaction (a savepoint under SQLite's group commit), so even a
  // create with nothing to look up first is more than its INSERT alone. The caller's transaction
  // when there is one (an idempotency key's).
  return inTransaction(ctx.tenant.db, async (trx) => {
    if (parent && !(await loadRecord(trx, ctx, parent.resource, parent.id))) throw notFound(parent.resource.name, parent.id);
    // The path's parent was just found live: its link in the body (the path's id) needs no second look.
    const others = parent ? Object.fromEntries(Object.entries(links).filter(([field]) => field !== parent.field)) : links;
    const record = await insertChecked(trx, ctx, resource, linked, await parentLinkProblems(trx, ctx, resource, others), 'after');
    await appendEvent(trx, ctx, resource, 'create', record, createdFields(resource));
    return record;
  });
}

/**
 * Checks the body, then inserts it: the problems found so far and the body's are reported
 * together. Its event: appended `after` it by the caller, in the INSERT's own `statement`, or
 * by a statement the given WriteThen runs right after it (engine/sql/write-then.ts).
 */
async function insertChecked(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  linked: { body: unknown; problems: ProblemItem[] },
  links: ProblemItem[],
  event: 'after' | 'statement' | WriteThen,
): Promise<ApiRecord> {
  const row = checkedRow(ctx, resource, linked, links);
  const { tenant } = ctx;
  let made: ApiRecord | undefined; // the record `then` made its event of
  const inserted =
    event === 'statement'
      ? await insertRowWithEvent(tenant, db, resource, row, { at: eventTime(ctx), changed: createdFields(resource), user: ctx.user ?? null })
      : typeof event === 'function'
        ? await insertRowThen(event, db, resource.name, row, (r) =>
            tenant.dialect.events.appendQuery!(tenant, db, eventOf(ctx, resource, 'create', (made = toRecord(resource, tenant.dialect, r)), createdFields(resource))),
          )
        : await insertRow(db, resource.name, row);
  if (!inserted) throw new EngineError('internal', 'The INSERT returned no row.');
  return made ?? toRecord(resource, ctx.tenant.dialect, inserted);
}

/**
 * A create with parents to look up, as one statement whose INSERT checks each parent is live
 * (record-writes.ts linkedValues): on a database that writes the record and its event in one
 * statement, or with a WRITE_THEN handle. Undefined when not done (nothing written): the body has
 * problems (reported by the transaction, in SPEC 1's order: a missing parent in the path is 404
 * first), no such database or handle, or a parent is not live.
 */
async function insertLinked(ctx: OperationContext, resource: Resource, linked: { body: unknown; problems: ProblemItem[] }): Promise<ApiRecord | undefined> {
  const { tenant } = ctx;
  const { events } = tenant.dialect;
  const writeThen = events.inStatement ? undefined : events.appendQuery && writeThenOf(tenant.db);
  if (!events.inStatement && !writeThen) return undefined;
  if (linked.problems.length > 0) return undefined;
  const checked = valueOf(checkBody(schemasOf(resource).create, linked.body));
  if (!checked.ok) return undefined;
  const links = linksNamed(resource, checked.value as ApiRecord);
  if (links.length === 0) return undefined;
  const row = rowOf(ctx, resource, checked.value as ApiRecord);
  if (!writeThen) {
    const event = { at: eventTime(ctx), changed: createdFields(resource), user: ctx.user ?? null };
    const inserted = await insertLinkedWithEvent(tenant, tenant.db, resource, row, links, event);
    if (inserted) events.written?.(tenant);
    return inserted && toRecord(resource, tenant.dialect, inserted);
  }
  let made: ApiRecord | undefined; // the record `then` made its event of
  await insertLinkedThen(writeThen, tenant, resource.name, row, links, (r) =>
    events.appendQuery!(tenant, tenant.db, eventOf(ctx, resource, 'create', (made = toRecord(resource, tenant.dialect, r)), createdFields(resource))),
  );
  return made;
}

/** A create with no parent path and no link sent: no record to look up before its INSERT. */
const nothingToLookUp = (resource: Resource, body: unknown, parent: ParentScope | undefined) =>
  !parent && Object.keys(sentLinks(resource, body)).length === 0;

/** The body checked (the problems found so far and the body's reported together), as the row to insert. */
function checkedRow(ctx: OperationContext, resource: Resource, linked: { body: unknown; problems: ProblemItem[] }, links: ProblemItem[]): Record<string, unknown> {
  const checked = valueOf(checkBody(schemasOf(resource).create, linked.body));
  throwIfAny([...linked.problems, ...checked.problems, ...links]);
  if (!checked.ok) throw new EngineError('internal', 'unreachable: a failed check always has problems');
  return rowOf(ctx, resource, checked.value as ApiRecord);
}

/** A checked body's values (the schema's keys only) as the row to insert, stamped now. */
function rowOf(ctx: OperationContext, resource: Resource, values: ApiRecord): Record<string, unknown> {
  const t = now();
  // Not a spread: `{ ...a, b }` is slow on Node 20 (engine/http/headers.ts).
  return toRow(resource, ctx.tenant.dialect, Object.assign({}, values, { created: t.date, updated: t.timestamp, deleted: false }));
}

/**
 * A create with an Idempotency-Key, the key claimed in the create's own statement with the
 * answer kept for it (record, event and key: one round trip, atomic without a transaction), on
 * a database that can (EventLog.inStatement, Dialect.lockInStatement) when the create has nothing
 * to look up first. Undefined when not done, nothing written: it cannot be one statement here, or
 * the key is not free (in flight elsewhere, or answered before); the caller's transaction then
 * carries the request out or answers for the key (engine/idempotency/).
 */
export async function createClaimed(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  claim: Claim,
  locationPrefix: string,
): Promise<KeptAnswer | undefined> {
  const { tenant } = ctx;
  if (!nothingToLookUp(resource, body, undefined)) return undefined;
  const { events } = tenant.dialect;
  if (events.inStatement && tenant.dialect.lockInStatement) {
    const row = checkedRow(ctx, resource, { body, problems: [] }, []);
    const event = { at: eventTime(ctx), changed: createdFields(resource), user: ctx.user ?? null };
    const kept = await insertRowClaimed(tenant, tenant.db, resource, row, event, claim, { status: 201, locationPrefix });
    if (kept) events.written?.(tenant);
    return kept;
  }
  // One writer (SQLite): the INSERT checks the key is free, and its event and the kept answer
  // run right after it, kept with it (engine/sql/write-then.ts); no transaction, no lookup first.
  const writeThen = events.appendQuery ? writeThenOf(tenant.db) : undefined;
  if (!writeThen) return undefined;
  const row = checkedRow(ctx, resource, { body, problems: [] }, []);
  let answer: KeptAnswer | undefined;
  await insertRowUnclaimedThen(writeThen, tenant, resource.name, row, claim, (inserted) => {
    const record = toRecord(resource, tenant.dialect, inserted);
    const event = eventOf(ctx, resource, 'create', record, createdFields(resource)); // makes the record's JSON, for the answer too
    answer = answerOf(201, record, `${locationPrefix}${record.id}`);
    return [events.appendQuery!(tenant, tenant.db, event), keepQuery(tenant.db, claim, answer, claim.expiresAt)];
  });
  return answer;
}

/**
 * A batch's create with nothing to look up first (no parent path, no link sent), checked, as
 * its row: undefined when the create needs its lookups (the batch runs it alone, with `create`).
 * Throws the create's problems as `create` would.
 */
export function plainCreateRow(ctx: OperationContext, resource: Resource, body: unknown, parent: ParentScope | undefined): Record<string, unknown> | undefined {
  if (!nothingToLookUp(resource, body, parent)) return undefined;
  return checkedRow(ctx, resource, { body, problems: [] }, []);
}

/**
 * Rows of plainCreateRow, of one shape, inserted together with their events in the caller's
 * transaction (a batch's): one statement for all on a database that writes a record and its
 * event in one (EventLog.inStatement), else one for the rows and one for their events. Their
 * records, in the order given.
 */
export async function insertPlainCreates(ctx: OperationContext, resource: Resource, rows: readonly Record<string, unknown>[]): Promise<ApiRecord[]> {
  const { tenant } = ctx;
  const changed = createdFields(resource);
  if (tenant.dialect.events.inStatement) {
    const inserted = await insertRowsWithEvents(tenant, tenant.db, resource, rows, { at: eventTime(ctx), changed, user: ctx.user ?? null });
    tenant.dialect.events.written?.(tenant);
    return inserted.map((r) => toRecord(resource, tenant.dialect, r));
  }
  const records = (await insertRows(tenant.db, resource.name, rows)).map((r) => toRecord(resource, tenant.dialect, r));
  await tenant.dialect.events.append(tenant, tenant.db, records.map((r) => eventOf(ctx, resource, 'create', r, changed)));
  return records;
}
