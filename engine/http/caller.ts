import type { TenantDb } from '../dialects/types.ts';
import type { Action } from './route-table.ts';

/** Who is calling, as the host's authentication resolved it. */
export interface Caller {
  readonly tenant: TenantDb;
  /** Username, when authentication is on; cursors are bound to it. */
  readonly user?: string | undefined;
  /**
   * The user's role names, for `enter.<state>.roles` (SPEC 11). Left out: with no `user` either
   * (no authentication) every state may be entered; with a user, none whose entry names roles.
   */
  readonly roles?: readonly string[] | undefined;
  /** Whether the caller may perform an action on a collection. */
  can(collection: string, action: Action): boolean;
  /**
   * When the caller's proof (its token) expires, epoch milliseconds: an event stream ends then,
   * and its client reconnects with a new token. Undefined: it does not expire.
   */
  readonly expiresAt?: number | undefined;
  /** Headers for every answer to this caller (e.g. rate-limit state), errors included. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Lets go of what the host holds for this caller (its tenant open); called once its answer is made. */
  readonly release?: (() => void) | undefined;
}

/** Resolves the caller of a request, or throws an EngineError (401, 429, ...). */
export type ResolveCaller = (req: Request) => Promise<Caller>;

export const allowAll = (): Caller['can'] => () => true;
