import { sql, type Kysely } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';
import { sha256Hex } from '../idempotency/sha256.ts';

/** What a team's migration step is given: the tenant's database inside its migration's transaction. */
export interface StepContext {
  /** The tenant's Kysely handle, in the transaction that migrates it (throw to leave it as it was). */
  readonly db: Kysely<any>;
  /** The tenant's name (`client_db` in the service). */
  readonly tenant: string;
  /** Its PostgreSQL schema (the handle's search path already names it); undefined on SQLite. */
  readonly schema: string | undefined;
}

/**
 * A deployment's own data step, run once per tenant between the definitions' new columns and the
 * checks of their rules (SPEC 12), in the tenant's migration transaction.
 */
export interface MigrationStep {
  /** Unique and ordered: `0001-fill-site` (the service takes the file name). */
  readonly name: string;
  up(ctx: StepContext): Promise<void>;
  /** A tenant whose tables are made now: `mark` it applied without running (default), or `run` it. */
  readonly onNewTenant?: 'mark' | 'run';
  /** What identifies the step's code (the service: its file's text); default its function's text. */
  readonly source?: string;
}

export const STEPS_TABLE = 'mrs_migration_steps';

export const checksumOf = (step: MigrationStep): string => sha256Hex(step.source ?? step.up.toString());

/** Refuses, at start, steps a run could not order or tell apart. */
export function checkSteps(steps: readonly MigrationStep[]): void {
  const seen = new Set<string>();
  for (const s of steps) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/.test(s.name)) throw new Error(`migration step "${s.name}": a name is letters, digits, _ . -`);
    if (seen.has(s.name)) throw new Error(`migration step "${s.name}" is given twice`);
    seen.add(s.name);
  }
}

/** The steps a tenant ran, with the checksum of each as it ran (none when it has no table of them yet). */
export async function appliedSteps(t: TenantDb): Promise<Map<string, string>> {
  if ((await t.catalog.columns(t, STEPS_TABLE)).size === 0) return new Map();
  const rows = await t.db.selectFrom(STEPS_TABLE).select(['name', 'checksum']).execute();
  return new Map(rows.map((r) => [r.name as string, r.checksum as string]));
}

/** Makes the table of the steps a tenant ran, when missing (inside the migration's transaction). */
export async function makeStepsTable(t: TenantDb): Promise<void> {
  await t.db.schema
    .createTable(STEPS_TABLE)
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('checksum', 'text', (c) => c.notNull())
    .addColumn('applied', 'text', (c) => c.notNull())
    .execute();
}

/** The steps not yet run, in order, and a refusal for each one run and changed since. */
export function pendingOf(
  steps: readonly MigrationStep[],
  applied: ReadonlyMap<string, string>,
): { pending: MigrationStep[]; changed: string[] } {
  const changed = steps
    .filter((s) => applied.has(s.name) && applied.get(s.name) !== checksumOf(s))
    .map((s) => `step ${s.name}: it ran in this tenant and has changed since: leave a step that ran as it was, and add a new step instead`);
  return { pending: steps.filter((s) => !applied.has(s.name)), changed };
}

/** Runs a step (or only marks it, on a new tenant unless it asks to run) and records it. */
export async function applyStep(t: TenantDb, step: MigrationStep, newTenant: boolean, now: string): Promise<void> {
  if (!newTenant || step.onNewTenant === 'run') {
    try {
      await step.up({ db: t.db, tenant: t.key, schema: t.schema });
    } catch (e) {
      throw new StepFailed(t.key, step.name, e);
    }
  }
  await t.db
    .insertInto(STEPS_TABLE)
    .values({ name: step.name, checksum: checksumOf(step), applied: now })
    .execute();
}

/** A step that threw: its tenant is left as it was (the migration's transaction is rolled back). */
export class StepFailed extends Error {
  constructor(
    readonly tenant: string,
    readonly step: string,
    readonly why: unknown,
  ) {
    super(`tenant ${tenant}: migration step ${step} failed, tenant left as it was: ${why instanceof Error ? why.message : String(why)}`);
    this.name = 'StepFailed';
  }
}

/** How many rows of a table hold null in a column (a refusal after the steps names it). */
export async function nullCount(t: TenantDb, table: string, column: string): Promise<number> {
  const row = await t.db
    .selectFrom(table)
    .select(sql<number>`count(*)`.as('n'))
    .where(sql.ref(column), 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
