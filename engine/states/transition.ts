import { EngineError, type ProblemItem, type Result } from '../errors.ts';
import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';
import { listStates, mayMove, stateFields } from './machine.ts';

/**
 * Who is moving the record. `roles` undefined means the host told the engine nothing about roles:
 * with no user either (an engine without authentication) every state may be entered; with a user,
 * no role is held, so `enter.roles` refuses (a host with its own users passes their roles).
 */
export interface Mover {
  readonly user?: string | undefined;
  readonly roles?: readonly string[] | undefined;
}

export const holdsOneOf = (mover: Mover, roles: readonly string[]) =>
  mover.roles === undefined ? mover.user === undefined : roles.some((r) => mover.roles!.includes(r));

/**
 * SPEC 11's checks of a write that may move a record from `current` to `next` (the record as it
 * would be written), in SPEC 1's order: every transition not allowed (409), then a state the
 * mover's roles may not enter (403), then fields a state entered requires (422). Pure: the
 * record as it would be written, once allowed.
 */
export function checkTransition(resource: Resource, current: ApiRecord, next: ApiRecord, mover: Mover): Result<ApiRecord> {
  const fields = stateFields(resource);
  if (fields.length === 0) return { value: next };
  const moves = fields.filter(([n]) => next[n] !== current[n]);
  const refused: ProblemItem[] = moves
    .filter(([n, f]) => !mayMove(f, current[n] as string, next[n] as string))
    .map(([n, f]) => {
      const from = current[n] as string;
      return {
        field: n,
        message: `may not move from ${from} to ${next[n]}: from ${from} it may move to ${listStates(f.states[from] ?? [])}`,
      };
    });
  if (refused.length) return refusedWith('invalid-transition', 'The record may not move to that state: see errors.', refused);
  const barred = moves.flatMap(([n, f]) => {
    const roles = f.enter?.[next[n] as string]?.roles;
    return roles === undefined || holdsOneOf(mover, roles)
      ? []
      : [{ field: n, message: `only a user holding ${listStates(roles)} may move a record into ${next[n]}` }];
  });
  if (barred.length) return refusedWith('forbidden', 'Your roles may not move the record into that state: see errors.', barred);
  const missing = moves.flatMap(([n, f]) =>
    (f.enter?.[next[n] as string]?.requires ?? [])
      .filter((r) => next[r] === null || next[r] === undefined)
      .map((r) => ({ field: r, message: `must be set to move ${n} into ${next[n]}` })),
  );
  if (missing.length) return refusedWith('invalid-body', 'The state entered requires fields that are not set: see errors.', missing);
  return { value: next };
}

const refusedWith = (...args: ConstructorParameters<typeof EngineError>): Result<never> => ({ error: new EngineError(...args) });
