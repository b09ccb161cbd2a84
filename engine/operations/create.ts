import type { ProblemItem, Result } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { now, type Written } from '../records.ts';
import type { Claim, KeptAnswer } from '../idempotency/store.ts';
import { factsFor } from '../writes/conditions.ts';
import { planCreate, type InsertPlan, type WriteCaller } from '../writes/plan.ts';
import { createLinkConditions, createLinkProblems } from '../writes/rules/parent-links.ts';
import { writerOf, type KeptCreate } from '../writes/writer.ts';
import { isPlainObject } from '../validate/body.ts';
import { throwIfAny } from './checks.ts';
import { notFound, loadRecord, type OperationContext, type ParentScope } from './context.ts';
import { inTransaction } from '../writes/transaction.ts';
import { changeCallerOf, createdFields } from './events.ts';

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

/** Who writes and when, as a plan takes it. */
const callerOf = (ctx: OperationContext): WriteCaller => Object.assign(changeCallerOf(ctx), { stamp: now() });

const planOf = (ctx: OperationContext, resource: Resource, body: unknown, problems: readonly ProblemItem[] = []) =>
  planCreate(resource, body, callerOf(ctx), createdFields(resource), problems);

/**
 * Creates a record with its event; under a parent path the parent link comes from the path.
 * The plan's INSERT checks its parent links are live itself; when it wrote nothing, or the body
 * has problems, the parents are looked up to say why (SPEC 1's order: a missing parent in the
 * path is 404 first; body problems and links naming no live record reported together).
 */
export async function create(ctx: OperationContext, resource: Resource, body: unknown, parent?: ParentScope): Promise<Written> {
  const linked = withPathLink(body, parent);
  const writer = writerOf(ctx.tenant);
  for (;;) {
    const planned = planOf(ctx, resource, linked.body, linked.problems);
    if ('value' in planned) {
      const written = await writer.run(ctx.tenant, planned.value);
      if (written) return written;
    }
    // Throws unless every parent is live now (one named was created meanwhile): then plan again.
    await whyNotCreated(ctx, resource, linked.body, parent, planned);
  }
}

/** Why a create wrote nothing: its parents looked up, the refusal thrown in SPEC 1's order. */
async function whyNotCreated(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  parent: ParentScope | undefined,
  planned: Result<InsertPlan>,
): Promise<void> {
  // One view of the parents: their reads in one transaction (the caller's when there is one).
  await inTransaction(ctx.tenant.db, async (trx) => {
    if (parent && !(await loadRecord(trx, ctx, parent.resource, parent.id))) throw notFound(parent.resource.name, parent.id);
    // The path's parent was just found live: its link in the body (the path's id) needs no second look.
    const links = createLinkConditions(resource, isPlainObject(body) ? body : {}).filter(
      (c) => c.is !== 'live' || resource.parents.get(c.table) !== parent?.field,
    );
    const facts = await factsFor(links, undefined, async (table, id) => Boolean(await loadRecord(trx, ctx, ctx.registry.get(table)!, id)));
    throwIfAny([...('error' in planned ? planned.error.errors : []), ...createLinkProblems(resource, links, facts)]);
    if ('error' in planned) throw planned.error;
  });
}

/**
 * A create with an Idempotency-Key, the key claimed and the answer kept by the create's own
 * write (record, event and key: atomic without a transaction) where the writer can, when the
 * create has no parent to look up. Undefined when not done, nothing written: it cannot be done
 * so here, or the key is not free; the caller's transaction then carries the request out or
 * answers for the key (engine/idempotency/).
 */
export async function createClaimed(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  claim: Claim,
  kept: KeptCreate,
): Promise<KeptAnswer | undefined> {
  const plan = plainCreate(ctx, resource, body, undefined);
  return plan && writerOf(ctx.tenant).runClaimed(ctx.tenant, plan, claim, kept);
}

/**
 * A create with nothing to look up first (no parent path, no link sent), planned: undefined
 * when it has parents to look up (run it with `create`). Throws the create's problems as
 * `create` would.
 */
export function plainCreate(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  parent: ParentScope | undefined,
): InsertPlan | undefined {
  if (parent || createLinkConditions(resource, isPlainObject(body) ? body : {}).length > 0) return undefined;
  const planned = planOf(ctx, resource, body);
  if ('error' in planned) throw planned.error;
  return planned.value;
}

/** Plans of plainCreate, of one collection and shape, written together with their events (a batch's run): their records, in order. */
export const createAll = (ctx: OperationContext, plans: readonly InsertPlan[]): Promise<Written[]> =>
  writerOf(ctx.tenant).runAll(ctx.tenant, plans);
