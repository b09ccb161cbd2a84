import { EngineError, type ProblemItem, type Result } from '../errors.ts';
import type { Condition } from '../http/conditional.ts';
import { nextTimestamp, toRow, type ApiRecord, type Stored } from '../records.ts';
import type { Resource } from '../registry.ts';
import { stateFields } from '../states/machine.ts';
import type { Mover } from '../states/transition.ts';
import { checkBody, fieldProblems, isPlainObject } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import { NEVER, type Facts } from './conditions.ts';
import { invalidBody, versionRead, type ChangeCaller, type UpdatePlan } from './plan.ts';
import { ifMatchCondition } from './rules/if-match.ts';
import { bodyProblemsOf, refusals, updateConditions } from './rules/index.ts';
import type { UpdateWrite } from './rules/rule.ts';

/** PUT (`replace`): the body is the whole record, missing optional fields reset to their defaults. PATCH (`patch`): only the fields sent change. */
export type UpdateMode = 'replace' | 'patch';

/** A PATCH or PUT as asked: the record, the body, its mode and its If-Match, and who moves the record's states. */
export interface UpdateAsk {
  readonly resource: Resource;
  readonly id: number;
  readonly body: unknown;
  readonly mode: UpdateMode;
  readonly ifMatch: Condition | undefined;
  readonly mover: Mover;
}

/** The body checked against its mode's schema: its problems (a body that is not an object among them), and the write as the rules see it. */
export function checkedUpdate(ask: UpdateAsk): { readonly problems: readonly ProblemItem[]; readonly write: UpdateWrite } {
  const checked = checkBody(schemasOf(ask.resource)[ask.mode], ask.body);
  const values = 'value' in checked ? writableValues(ask.resource, checked.value as ApiRecord) : undefined;
  return { problems: fieldProblems(checked), write: { sent: ask.body as ApiRecord, values, mover: ask.mover } };
}

/**
 * The plan without reading the record first, when its body passes its checks: its conditions are
 * what the write asks of the row, its If-Match (a tag's version) and its rules (UPDATE_RULES),
 * for its statement's WHERE; `updated` stamped now, which the statement keeps after the row's
 * own. Undefined when the write needs its read (a body with problems, which the read reports; an
 * If-Match or a rule no row holds, NEVER).
 */
export function planUnreadUpdate(ask: UpdateAsk, caller: ChangeCaller): UpdatePlan | undefined {
  const precondition = ifMatchCondition(ask.ifMatch);
  if (precondition === NEVER || !isPlainObject(ask.body)) return undefined;
  const { problems, write } = checkedUpdate(ask);
  if (problems.length > 0 || !write.values) return undefined;
  const conditions = [...(precondition ? [precondition] : []), ...updateConditions(ask.resource, write)];
  if (conditions.includes(NEVER)) return undefined;
  return updatePlan(ask, caller, write.values, nextTimestamp(undefined), conditions);
}

/**
 * The plan from the record read (its If-Match already held: `expected`, the version it asked),
 * judged by the rules with the facts their conditions name (factsFor): the plan, or the refusal,
 * the body's problems and the rules' together (a refusal alone, as it is). A record with states
 * keeps the version read too: its move was checked against the states as read.
 */
export function planReadUpdate(
  ask: UpdateAsk,
  caller: ChangeCaller,
  read: { readonly current: Stored; readonly expected: number | undefined },
  checked: ReturnType<typeof checkedUpdate>,
  facts: Facts,
): Result<UpdatePlan> {
  const { current, expected } = read;
  const { problems, write } = checked;
  const refused = refusals(ask.resource, write, current, facts);
  if (problems.length) return { error: invalidBody([...problems, ...bodyProblemsOf(refused)]) };
  if ('error' in refused) return refused;
  if (!write.values) return { error: new EngineError('internal', 'unreachable: a failed check always has problems') };
  const kept = expected ?? (stateFields(ask.resource).length ? current.version : undefined);
  return { value: updatePlan(ask, caller, write.values, nextTimestamp(current.record.updated), versionRead(kept)) };
}

function updatePlan(
  ask: UpdateAsk,
  caller: ChangeCaller,
  values: ApiRecord,
  updated: string,
  conditions: UpdatePlan['conditions'],
): UpdatePlan {
  return {
    kind: 'update',
    resource: ask.resource,
    id: ask.id,
    row: toRow(ask.resource, caller.flavour, Object.assign({}, values, { updated })),
    conditions,
    event: { at: caller.at, user: caller.user },
  };
}

/** Only the writable fields of a parsed body (read-only ones were only there to be compared). */
function writableValues(resource: Resource, body: ApiRecord): ApiRecord {
  return Object.fromEntries(resource.writable.filter((n) => body[n] !== undefined).map((n) => [n, body[n]]));
}
