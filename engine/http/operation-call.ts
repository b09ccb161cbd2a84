import type { Kysely } from 'kysely';
import type { CursorSettings } from '../cursor/index.ts';
import {
  fingerprintOf,
  withIdempotencyKey,
  type Claim,
  type IdempotencySettings,
  type KeptAnswer,
  type Outcome,
} from '../idempotency/index.ts';
import type { OperationContext } from '../operations/context.ts';
import { inTransaction } from '../writes/transaction.ts';
import type { Registry } from '../registry.ts';
import type { Caller } from './caller.ts';

/** What every operation call takes from the engine's settings. */
export interface CallSettings {
  readonly registry: Registry;
  readonly cursors: CursorSettings;
}

/** The operations' context for a caller: its tenant's database, its user and roles. */
export const operationContext = (settings: CallSettings, caller: Caller): OperationContext => ({
  tenant: caller.tenant,
  registry: settings.registry,
  user: caller.user,
  roles: caller.roles,
  cursors: settings.cursors,
});

/** The same context on a transaction's handle, so that its operations write in that transaction. */
export const onTransaction = (ctx: OperationContext, trx: Kysely<any>): OperationContext =>
  Object.assign({}, ctx, { tenant: Object.assign({}, ctx.tenant, { db: trx }) });

/** Runs `run` in one transaction: the context's own when it is on one already. */
export const inCallTransaction = <T>(ctx: OperationContext, run: (ctx: OperationContext) => Promise<T>): Promise<T> =>
  inTransaction(ctx.tenant.db, (trx) => run(trx === ctx.tenant.db ? ctx : onTransaction(ctx, trx)));

/** The request a keyed write answers: its method and path, and the body it sent. */
export interface KeyedCall {
  readonly method: string;
  readonly pathname: string;
  readonly sent: unknown;
  readonly key: string;
}

/**
 * A write sent with an Idempotency-Key, carried out once (engine/idempotency/): `write` runs in
 * the transaction that keeps its answer, or the answer kept for the key is given again.
 * `oneStatement`, where given, tries the write and the key's claim as one statement first.
 */
export function writeOnce(
  ctx: OperationContext,
  settings: IdempotencySettings,
  call: KeyedCall,
  write: (ctx: OperationContext) => Promise<KeptAnswer>,
  oneStatement?: (claim: Claim) => Promise<KeptAnswer | undefined>,
): Promise<Outcome> {
  const request = {
    owner: ctx.user ?? '',
    key: call.key,
    fingerprint: fingerprintOf(call.method, call.pathname, call.sent, settings.sha256Hex),
  };
  return withIdempotencyKey(ctx.tenant, settings, request, (trx) => write(onTransaction(ctx, trx)), oneStatement);
}
