import type { Kysely } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';
import { EngineError, isEngineError } from '../errors.ts';
import { problemBody } from '../http/problem.ts';
import type { KeyedRequest } from './key.ts';
import { findKept, forget, keep, sweep, type Claim, type KeptAnswer } from './store.ts';

export { fingerprintOf, parseIdempotencyKey, type KeyedRequest } from './key.ts';
export { type Claim, type KeptAnswer } from './store.ts';

export interface IdempotencySettings {
  /** How long an answer is kept. */
  readonly ttlMs: number;
  /** The clock, in epoch milliseconds. */
  readonly now: () => number;
  /** SHA-256 of a string's UTF-8 bytes as lowercase hex, for fingerprints (default the engine's own, sha256.ts). */
  readonly sha256Hex?: ((text: string) => string) | undefined;
}

/** The answer to a keyed request, and whether it is one kept from an earlier request. */
export interface Outcome {
  readonly answer: KeptAnswer;
  readonly replayed: boolean;
}

/** Keys being carried out in this process; other processes see them through the database's lock. */
const inFlight = new Set<string>();
/** The sweep runs at most this often per tenant database, and whenever answers may have expired since. */
const SWEEP_EVERY_MS = 60_000;
const SWEEPS = {};

const inFlightError = () =>
  new EngineError('idempotency-key-in-flight', 'A request with this Idempotency-Key is still being carried out: retry it later.', [], {
    'retry-after': '1',
  });

/** An error answer to keep: it left nothing written, so it is kept after its transaction is undone. */
class Refused extends Error {
  constructor(readonly error: EngineError) {
    super(error.detail);
  }
}

/** 5xx and 429 are never kept (SPEC 10); a retry carries the request out again. */
const keepable = (e: EngineError) => e.status < 500 && e.status !== 429;

/**
 * Carries out a keyed request once (SPEC 10): `run` writes in the transaction given, and the key
 * is claimed by keeping the answer in that same transaction, so the write and its key commit
 * together or not at all. A later request with the key and the same fingerprint gets the kept
 * answer; another fingerprint is 422; a request with the key still running is 409, in this
 * process (its set) or another (the database's lock, held until the claiming transaction ends).
 * `oneStatement`, where given, is tried first: the write with the key's claim in one statement.
 */
export async function withIdempotencyKey(
  tenant: TenantDb,
  settings: IdempotencySettings,
  req: KeyedRequest,
  run: (trx: Kysely<any>) => Promise<KeptAnswer>,
  oneStatement?: (claim: Claim) => Promise<KeptAnswer | undefined>,
): Promise<Outcome> {
  const name = JSON.stringify(['mrs-idempotency', tenant.key, req.owner, req.key]);
  if (inFlight.has(name)) throw inFlightError();
  inFlight.add(name);
  try {
    await sweepSometimes(tenant, settings);
    // A write that can claim the key in its own statement: one round trip instead of a
    // transaction of several. When the key was not free (the statement wrote nothing), the
    // transaction below answers for the key as it would have anyway: a replay, 409 or 422.
    if (oneStatement) {
      const claim: Claim = {
        owner: req.owner,
        key: req.key,
        fingerprint: req.fingerprint,
        lock: name,
        expiresAt: settings.now() + settings.ttlMs,
      };
      const answer = await oneStatement(claim).catch((e: unknown) => notFree(tenant.db, req, e));
      if (answer) return { answer, replayed: false };
    }
    return await tenant.db.transaction().execute(async (trx) => {
      if (!(await tenant.locks.tryLock(trx, name))) throw inFlightError();
      const kept = await findKept(trx, req);
      if (kept && kept.expiresAt > settings.now()) {
        if (kept.fingerprint !== req.fingerprint)
          throw new EngineError(
            'idempotency-key-reused',
            'This Idempotency-Key was used for another request (method, path or body): use a new key.',
            [{ header: 'Idempotency-Key', message: 'already used for a different request' }],
          );
        return { answer: kept, replayed: true };
      }
      if (kept) await forget(trx, req);
      let answer: KeptAnswer;
      try {
        answer = await run(trx);
      } catch (e) {
        throw isEngineError(e) && keepable(e) ? new Refused(e) : e;
      }
      await keep(trx, req, answer, settings.now() + settings.ttlMs);
      return { answer, replayed: false };
    });
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    const answer = { status: e.error.status, body: JSON.stringify(problemBody(e.error)), etag: e.error.headers.etag };
    await keep(tenant.db, req, answer, settings.now() + settings.ttlMs, true);
    throw e.error;
  } finally {
    inFlight.delete(name);
  }
}

/**
 * What a failed one-statement claim leaves to the transaction: a key that is not free (its
 * answer kept by another request meanwhile, the statement's insert of it refused), and a refusal
 * of the write, which the transaction answers for the key (a replay of the answer kept, or the
 * refusal again, kept). Anything else is the request's error, not tried a second time.
 */
async function notFree(db: Kysely<any>, req: KeyedRequest, e: unknown): Promise<undefined> {
  if (isEngineError(e) ? keepable(e) : await findKept(db, req)) return undefined;
  throw e;
}

async function sweepSometimes(tenant: TenantDb, settings: IdempotencySettings): Promise<void> {
  const state = tenant.state.get(SWEEPS, () => ({ last: -Infinity }));
  const now = settings.now();
  if (now - state.last < Math.min(SWEEP_EVERY_MS, settings.ttlMs)) return;
  state.last = now;
  await sweep(tenant.db, now);
}
