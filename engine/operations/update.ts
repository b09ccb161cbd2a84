import type { Kysely } from 'kysely';
import { EngineError, valueOf } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { nextTimestamp, storedOf, toRow, writtenOf, type ApiRecord, type Written } from '../records.ts';
import { updateRow, updateRowWithEvent } from '../sql/record-writes.ts';
import { checkBody, fieldProblems, isPlainObject } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import { throwIfAny, writableValues } from './checks.ts';
import { inTransaction, loadForWrite, type ReadForWrite, loadRecord, notFound, type OperationContext } from './context.ts';
import { stateFields } from '../states/machine.ts';
import type { Condition } from '../http/conditional.ts';
import { expectedVersion, lostRace } from './precondition.ts';
import { ifMatchCondition } from '../writes/rules/if-match.ts';
import { factsFor, NEVER } from '../writes/conditions.ts';
import { bodyProblemsOf, refusals, updateConditions } from '../writes/rules/index.ts';
import { appendEvent, changedFields, eventTime } from './events.ts';
import { writerOf } from '../writes/writer.ts';

type Mode = 'replace' | 'patch';

/**
 * PUT (`replace`): the body is the whole record, missing optional fields reset to their defaults.
 * PATCH (`patch`): only the fields sent change. Both in one transaction with their event, on
 * live records only.
 */
async function update(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  body: unknown,
  mode: Mode,
  ifMatch?: Condition,
): Promise<Written> {
  const { db } = ctx.tenant;
  // A record with states written by another write since it was read is read and checked again (SPEC 11).
  const readCheckWrite = async (trx: Kysely<any>, event: 'after' | 'statement') => {
    for (;;) {
      const written = await updateOnce(trx, ctx, resource, id, body, mode, ifMatch, event);
      if (written) return written;
    }
  };
  // Where the UPDATE and its event can be one statement, that statement is the write: alone when
  // its checks can be the statement's own (writtenWithoutRead), in a caller's transaction (a keyed
  // request's, a batch's) too, as one of its statements. Otherwise, outside a transaction, its
  // read before it is what a transaction's read would be (read committed, no lock taken), and
  // the checks against the version read are the statement's compare-and-set; in one, the read
  // takes the row's lock and the event is appended after the UPDATE.
  const writer = writerOf(ctx.tenant);
  const unread = writer.oneStatement ? await writtenWithoutRead(ctx, resource, id, body, mode, ifMatch) : undefined;
  if (unread || (writer.oneStatement && !writer.inTransaction)) {
    const written = unread ?? (await readCheckWrite(db, 'statement'));
    writer.wrote(ctx.tenant); // in a caller's transaction too: the numbering runs outside it, later
    return written;
  }
  return inTransaction(db, (trx) => readCheckWrite(trx, 'after'));
}

/**
 * The write as its one statement alone, without reading the record first, when its body passes
 * its checks. The statement stamps `updated` after the record's own and writes a live record
 * only where what the write asks of it holds: its If-Match (a tag's version, the compare-and-set:
 * engine/writes/rules/if-match.ts) and its rules (UPDATE_RULES: read-only fields sent hold the
 * values sent, parent links sent are the record's own or name live parents, a state sent is the
 * record's own or one it may move to, SPEC 11). When it writes none, a write that asked nothing
 * is 404; else it is left to its read (updateOnce), which says what failed, in SPEC 1's order.
 * A round trip and a read fewer. Undefined when the write needs its read first (a body with
 * problems, which the read reports; an If-Match no row holds).
 */
async function writtenWithoutRead(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  body: unknown,
  mode: Mode,
  ifMatch: Condition | undefined,
): Promise<Written | undefined> {
  const precondition = ifMatchCondition(ifMatch);
  if (precondition === NEVER || !isPlainObject(body)) return undefined;
  const checked = checkBody(schemasOf(resource)[mode], body);
  if (fieldProblems(checked).length > 0) return undefined;
  const values = writableValues(resource, valueOf(checked) as ApiRecord);
  // What the write's rules ask of the row (read-only fields sent, parent links, states, ...): the statement's WHERE.
  const conditions = [...(precondition ? [precondition] : []), ...updateConditions(resource, { sent: body, values, mover: ctx })];
  if (conditions.includes(NEVER)) return undefined;
  values.updated = nextTimestamp(undefined); // now: the statement keeps it after the record's own
  const { tenant } = ctx;
  const row = toRow(resource, tenant.flavour, values);
  const event = { at: eventTime(ctx), user: ctx.user ?? null };
  const updated = await updateRowWithEvent(tenant, tenant.db, resource, id, row, undefined, event, conditions);
  if (updated) return storedOf(resource, tenant.flavour, updated);
  if (conditions.length > 0) return undefined;
  throw notFound(resource.name, id);
}

/**
 * One read, check and write; undefined when a record with states changed since it was read. Its
 * event: appended `after` the UPDATE in the caller's transaction, or in the UPDATE's `statement`.
 */
async function updateOnce(
  trx: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  id: number,
  body: unknown,
  mode: Mode,
  ifMatch: Condition | undefined,
  event: 'after' | 'statement',
): Promise<Written | undefined> {
  const read: ReadForWrite | undefined =
    event === 'statement' ? await loadRecord(trx, ctx, resource, id) : await loadForWrite(trx, ctx, resource, id);
  if (!read) throw notFound(resource.name, id);
  const current = read.record;
  const expected = expectedVersion(read, ifMatch);
  const checked = checkBody(schemasOf(resource)[mode], body);
  const problems = fieldProblems(checked); // a body that is not an object is refused here
  const sent = body as ApiRecord;
  const values = 'value' in checked ? writableValues(resource, checked.value as ApiRecord) : undefined;
  const write = { sent, values, mover: ctx };
  // The records the rules name (parent links sent), looked up in the write's transaction.
  const facts = await factsFor(updateConditions(resource, write), read, async (table, parentId) =>
    Boolean(await loadRecord(trx, ctx, ctx.registry.get(table)!, parentId)),
  );
  const refused = refusals(resource, write, read, facts);
  // The body's problems and the rules' are reported together; a refusal alone, as it is.
  if (problems.length) throwIfAny([...problems, ...bodyProblemsOf(refused)]);
  if (!values) throw new EngineError('internal', 'unreachable: a failed check always has problems');
  valueOf(refused);
  values.updated = nextTimestamp(current.updated);
  const row = toRow(resource, ctx.tenant.flavour, values);
  // In a transaction the row was read under its lock (loadForWrite): the UPDATE replaces the row
  // read, whose JSON its event keeps. The statement reads the row it replaces itself. A move is
  // checked against the states as read: the write is then a compare-and-set on the version read.
  const guarded = expected ?? (stateFields(resource).length ? read.version : undefined);
  const updated =
    event === 'statement'
      ? await updateRowWithEvent(ctx.tenant, trx, resource, id, row, guarded, { at: eventTime(ctx), user: ctx.user ?? null })
      : await updateRow(trx, resource, id, row, guarded);
  if (!updated && expected !== undefined) return lostRace(trx, ctx, resource, id);
  // Deleted since it was read: the statement writes a live record only; a transaction's read held its lock.
  if (!updated && guarded === undefined) throw notFound(resource.name, id);
  if (!updated) return undefined;
  const stored = storedOf(resource, ctx.tenant.flavour, updated);
  if (event === 'statement') return stored;
  const written = writtenOf(stored);
  const changed = changedFields(resource, current, written.record);
  await appendEvent(trx, ctx, resource, 'update', written.record, changed, written.json, read.before);
  return written;
}

export const replace = (ctx: OperationContext, resource: Resource, id: number, body: unknown, ifMatch?: Condition) =>
  update(ctx, resource, id, body, 'replace', ifMatch);

export const patch = (ctx: OperationContext, resource: Resource, id: number, body: unknown, ifMatch?: Condition) =>
  update(ctx, resource, id, body, 'patch', ifMatch);
