import type { Kysely } from 'kysely';
import { EngineError, valueOf, type ProblemItem } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { now, storedOf, toRow, writtenOf, type ApiRecord, type Written } from '../records.ts';
import { keepQuery, type Claim, type KeptAnswer } from '../idempotency/store.ts';
import { createdAnswer } from '../http/write-answer.ts';
import {
  insertRow,
  insertRowClaimed,
  insertRows,
  insertRowsWithEvents,
  insertRowThen,
  insertRowIfKeyFreeThen,
  insertRowWithEvent,
} from '../sql/record-inserts.ts';
import type { LinkCheck } from '../sql/record-writes.ts';
import type { WriteThen } from '../sql/write-then.ts';
import { writerOf } from '../writes/writer.ts';
import { checkBody, fieldProblems, isPlainObject } from '../validate/body.ts';
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
export async function create(ctx: OperationContext, resource: Resource, body: unknown, parent?: ParentScope): Promise<Written> {
  const linked = withPathLink(body, parent);
  const links = sentLinks(resource, linked.body);
  // The INSERT with its event, kept together without a transaction of their own (insertedWithEvent),
  // where the database or the handle can: with nothing to look up first, that is the create; with
  // parents to look up, the INSERT looks them up itself when the body is valid, and when it
  // inserts nothing (a parent missing or deleted) the transaction below says which.
  const way = withEventWay(ctx);
  if (way && nothingToLookUp(resource, linked.body, parent)) return insertChecked(ctx.tenant.db, ctx, resource, linked, [], way);
  if (way) {
    const record = await insertLinked(ctx, resource, linked, way);
    if (record) return record;
  }
  // Otherwise its event goes in the same transaction (a savepoint under SQLite's group commit), so even a
  // create with nothing to look up first is more than its INSERT alone. The caller's transaction
  // when there is one (an idempotency key's).
  return inTransaction(ctx.tenant.db, async (trx) => {
    if (parent && !(await loadRecord(trx, ctx, parent.resource, parent.id))) throw notFound(parent.resource.name, parent.id);
    // The path's parent was just found live: its link in the body (the path's id) needs no second look.
    const others = parent ? Object.fromEntries(Object.entries(links).filter(([field]) => field !== parent.field)) : links;
    const written = writtenOf(
      await insertChecked(trx, ctx, resource, linked, await parentLinkProblems(trx, ctx, resource, others), 'after'),
    );
    await appendEvent(trx, ctx, resource, 'create', written.record, createdFields(resource), written.json);
    return written;
  });
}

/**
 * How a create and its event are kept together without a transaction of their own: one
 * statement, where the database writes both in one (Supports.eventInStatement), or a handle that runs
 * the event's statement right after the INSERT (engine/sql/write-then.ts). Undefined when
 * neither: the create takes a transaction (a savepoint under SQLite's group commit).
 */
type WithEvent = 'statement' | WriteThen;

function withEventWay(ctx: OperationContext): WithEvent | undefined {
  const writer = writerOf(ctx.tenant);
  return writer.oneStatement ? 'statement' : writer.writeThen;
}

/**
 * The row inserted with its create event, kept together `way`; with `links`, only where each
 * names a live parent. Undefined when no row was inserted: nothing written.
 */
async function insertedWithEvent(
  ctx: OperationContext,
  resource: Resource,
  row: Record<string, unknown>,
  links: readonly LinkCheck[],
  way: WithEvent,
): Promise<Written | undefined> {
  const { tenant } = ctx;
  const { events } = tenant; // appendQuery: a WriteThen's event
  if (way === 'statement') {
    const event = { at: eventTime(ctx), changed: createdFields(resource), user: ctx.user ?? null };
    const inserted = await insertRowWithEvent(tenant, tenant.db, resource, row, event, links);
    if (!inserted) return undefined;
    writerOf(tenant).wrote(tenant);
    return storedOf(resource, tenant.flavour, inserted);
  }
  let made: Required<Written> | undefined; // the record `then` made its event of
  const then = (r: Record<string, unknown>) => {
    made = writtenOf(storedOf(resource, tenant.flavour, r));
    return events.appendQuery!(tenant, tenant.db, eventOf(ctx, resource, 'create', made.record, createdFields(resource), made.json));
  };
  await insertRowThen(way, tenant, resource.name, row, then, links);
  return made;
}

/**
 * Checks the body, then inserts it: the problems found so far and the body's are reported
 * together. Its event: appended `after` it by the caller, or kept with it `way` (insertedWithEvent).
 */
async function insertChecked(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  linked: { body: unknown; problems: ProblemItem[] },
  links: ProblemItem[],
  event: 'after' | WithEvent,
): Promise<Written> {
  const row = checkedRow(ctx, resource, linked, links);
  const record =
    event === 'after'
      ? await insertRow(db, resource.name, row).then((r) => r && storedOf(resource, ctx.tenant.flavour, r))
      : await insertedWithEvent(ctx, resource, row, [], event);
  if (!record) throw new EngineError('internal', 'The INSERT returned no row.');
  return record;
}

/**
 * A create with parents to look up, its INSERT checking each is live (insertedWithEvent's links).
 * Undefined when not done (nothing written): the body has problems (reported by the
 * transaction, in SPEC 1's order: a missing parent in the path is 404 first), or a parent is not
 * live.
 */
async function insertLinked(
  ctx: OperationContext,
  resource: Resource,
  linked: { body: unknown; problems: ProblemItem[] },
  way: WithEvent,
): Promise<Written | undefined> {
  if (linked.problems.length > 0) return undefined;
  const checked = checkBody(schemasOf(resource).create, linked.body);
  if (fieldProblems(checked).length > 0) return undefined;
  const values = valueOf(checked) as ApiRecord;
  const links = linksNamed(resource, values);
  if (links.length === 0) return undefined;
  return insertedWithEvent(ctx, resource, rowOf(ctx, resource, values), links, way);
}

/** A create with no parent path and no link sent: no record to look up before its INSERT. */
const nothingToLookUp = (resource: Resource, body: unknown, parent: ParentScope | undefined) =>
  !parent && Object.keys(sentLinks(resource, body)).length === 0;

/** The body checked (the problems found so far and the body's reported together), as the row to insert. */
function checkedRow(
  ctx: OperationContext,
  resource: Resource,
  linked: { body: unknown; problems: ProblemItem[] },
  links: ProblemItem[],
): Record<string, unknown> {
  const checked = checkBody(schemasOf(resource).create, linked.body);
  throwIfAny([...linked.problems, ...fieldProblems(checked), ...links]);
  return rowOf(ctx, resource, valueOf(checked) as ApiRecord);
}

/** A checked body's values (the schema's keys only) as the row to insert, stamped now. */
function rowOf(ctx: OperationContext, resource: Resource, values: ApiRecord): Record<string, unknown> {
  const t = now();
  return toRow(resource, ctx.tenant.flavour, Object.assign({}, values, { created: t.date, updated: t.timestamp, deleted: false }));
}

/**
 * A create with an Idempotency-Key, the key claimed in the create's own statement with the
 * answer kept for it (record, event and key: one round trip, atomic without a transaction), on
 * a database that can (Supports.eventInStatement, Locks.inStatement) when the create has nothing
 * to look up first. Undefined when not done, nothing written: it cannot be one statement here, or
 * the key is not free (in flight elsewhere, or answered before); the caller's transaction then
 * carries the request out or answers for the key (engine/idempotency/).
 */
export async function createClaimed(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  claim: Claim,
  collectionPath: string,
): Promise<KeptAnswer | undefined> {
  const { tenant } = ctx;
  if (!nothingToLookUp(resource, body, undefined)) return undefined;
  const { events } = tenant;
  const writer = writerOf(tenant);
  if (writer.claimsInStatement) {
    const row = checkedRow(ctx, resource, { body, problems: [] }, []);
    const event = { at: eventTime(ctx), changed: createdFields(resource), user: ctx.user ?? null };
    const kept = await insertRowClaimed(tenant, tenant.db, resource, row, event, claim, {
      status: 201,
      locationPrefix: `${collectionPath}/`,
    });
    if (kept) writer.wrote(tenant);
    return kept;
  }
  // One writer (SQLite): the INSERT checks the key is free, and its event and the kept answer
  // run right after it, kept with it (engine/sql/write-then.ts); no transaction, no lookup first.
  const { writeThen } = writer;
  if (!writeThen) return undefined;
  const row = checkedRow(ctx, resource, { body, problems: [] }, []);
  let answer: KeptAnswer | undefined;
  await insertRowIfKeyFreeThen(writeThen, tenant, resource.name, row, claim, (inserted) => {
    const written = writtenOf(storedOf(resource, tenant.flavour, inserted)); // its JSON for the event and the answer
    const event = eventOf(ctx, resource, 'create', written.record, createdFields(resource), written.json);
    answer = createdAnswer(written, collectionPath);
    return [events.appendQuery!(tenant, tenant.db, event), keepQuery(tenant.db, claim, answer, claim.expiresAt)];
  });
  return answer;
}

/**
 * A batch's create with nothing to look up first (no parent path, no link sent), checked, as
 * its row: undefined when the create needs its lookups (the batch runs it alone, with `create`).
 * Throws the create's problems as `create` would.
 */
export function plainCreateRow(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  parent: ParentScope | undefined,
): Record<string, unknown> | undefined {
  if (!nothingToLookUp(resource, body, parent)) return undefined;
  return checkedRow(ctx, resource, { body, problems: [] }, []);
}

/**
 * Rows of plainCreateRow, of one shape, inserted together with their events in the caller's
 * transaction (a batch's): one statement for all on a database that writes a record and its
 * event in one (Supports.eventInStatement), else one for the rows and one for their events. Their
 * records, in the order given.
 */
export async function insertPlainCreates(
  ctx: OperationContext,
  resource: Resource,
  rows: readonly Record<string, unknown>[],
): Promise<Written[]> {
  const { tenant } = ctx;
  const changed = createdFields(resource);
  const writer = writerOf(tenant);
  if (writer.oneStatement) {
    const inserted = await insertRowsWithEvents(tenant, tenant.db, resource, rows, { at: eventTime(ctx), changed, user: ctx.user ?? null });
    writer.wrote(tenant);
    return inserted.map((r) => storedOf(resource, tenant.flavour, r));
  }
  const written = (await insertRows(tenant.db, resource.name, rows)).map((r) => writtenOf(storedOf(resource, tenant.flavour, r)));
  await tenant.events.append(
    tenant,
    tenant.db,
    written.map((w) => eventOf(ctx, resource, 'create', w.record, changed, w.json)),
  );
  return written;
}
