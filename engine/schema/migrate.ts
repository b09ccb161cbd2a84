import { sql } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';
import type { Registry } from '../registry.ts';
import { MigrationRefused, planTenant, refusalsOf, type TenantPlan } from './plan-tenant.ts';
import type { TablePlan } from './plan.ts';
import { applyStep, makeStepsTable, nullCount, type MigrationStep } from './steps.ts';
import { tableSpec, type ColumnSpec } from './table.ts';

/**
 * Brings every resource table up to its definition, or refuses (MigrationRefused) and changes
 * nothing: plans the tenant (plan.ts), then creates missing tables, renames columns
 * (`renamedFrom`), adds columns (existing rows keep their data) and indexes, drops the indexes a
 * current one replaces, then runs the deployment's pending steps and checks the definitions'
 * rules on the rows they left. Run inside the caller's transaction, so a statement or step that
 * fails part-way leaves nothing done. Safe to run at every start: a second run finds nothing to do.
 */
export async function migrateResources(
  t: TenantDb,
  registry: Registry,
  steps: readonly MigrationStep[] = [],
  now: () => string = () => new Date().toISOString(),
): Promise<TenantPlan> {
  const plan = await planTenant(t, registry, steps);
  if (refusalsOf(plan).length > 0) throw new MigrationRefused(plan);
  for (const table of plan.tables) await applyTablePlan(t, table);
  const pending = steps.filter((s) => plan.steps?.includes(s.name));
  if (steps.length > 0) await makeStepsTable(t);
  if (pending.length === 0) return plan;
  const newTenant = plan.tables.every((table) => table.create);
  for (const step of pending) await applyStep(t, step, newTenant, now());
  // The rules the steps were to satisfy, on the rows as they left them.
  const after = await planTenant(t, registry);
  if (refusalsOf(after).length > 0)
    throw new MigrationRefused(after, `after step ${pending.map((s) => s.name).join(', ')}`, await stillNull(t, registry));
  return plan;
}

/** Per resource, how many rows still hold null in a field that may not (a refusal after the steps says so). */
async function stillNull(t: TenantDb, registry: Registry): Promise<string[]> {
  const lines: string[] = [];
  for (const resource of registry.resources.values()) {
    const spec = tableSpec(resource, t.supports);
    for (const c of spec.columns) {
      if (c.rules === undefined || c.rules.allowsNull) continue;
      const n = await nullCount(t, spec.name, c.name);
      if (n > 0) lines.push(`resource ${spec.name}: field ${c.name}: ${n} row${n === 1 ? '' : 's'} still hold null`);
    }
  }
  return lines;
}

async function applyTablePlan(t: TenantDb, plan: TablePlan): Promise<void> {
  const { db, flavour } = t;
  const columnDef = (c: ColumnSpec) => (col: any) => {
    let b = c.notNull ? col.notNull() : col;
    if (c.default !== undefined) b = b.defaultTo(flavour.encode(c.kind, c.default));
    return b;
  };
  const table = plan.resource;
  if (plan.create) {
    let create = db.schema.createTable(table).addColumn('id', flavour.idColumn.type, (col) => {
      let b = col.primaryKey();
      if (flavour.idColumn.identity) b = b.generatedByDefaultAsIdentity();
      if (flavour.idColumn.autoIncrement) b = b.autoIncrement();
      return b;
    });
    for (const c of plan.addColumns) create = create.addColumn(c.name, flavour.columnType(c.kind), columnDef(c));
    await create.execute();
  } else {
    for (const { from, to } of plan.renameColumns) await db.schema.alterTable(table).renameColumn(from, to).execute();
    for (const c of plan.addColumns)
      await db.schema.alterTable(table).addColumn(c.name, flavour.columnType(c.kind), columnDef(c)).execute();
  }
  // No `if not exists`: the plan read the indexes under the migration lock, and an object of the
  // same name elsewhere must fail the migration rather than leave the table without its index.
  for (const ix of plan.addIndexes) {
    const create = db.schema
      .createIndex(ix.name)
      .on(table)
      .columns([...ix.columns]);
    await (ix.deletedOnly ? create.where(sql.ref('deleted'), '=', sql.lit(flavour.encode('boolean', true))) : create).execute();
  }
  // Only after their replacements exist, so searches always have an index.
  for (const name of plan.dropIndexes) await db.schema.dropIndex(name).execute();
}
