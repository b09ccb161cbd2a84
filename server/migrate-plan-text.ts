import type { TablePlan, TenantPlan } from '../engine/schema/index.ts';

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** What migrate does to one table, one phrase per change (past tense once done). */
function changes(t: TablePlan, done: boolean): string[] {
  const [add, rename, drop] = done ? ['added', 'renamed', 'dropped'] : ['add', 'rename', 'drop'];
  if (t.create)
    return [
      `${done ? 'created' : 'create'} table with ${count(t.addColumns.length, 'column')} and ${t.addIndexes.length === 1 ? '1 index' : `${t.addIndexes.length} indexes`}`,
    ];
  return [
    ...t.renameColumns.map((r) => `${rename} column ${r.from} to ${r.to} (its data kept)`),
    ...t.addColumns.map(
      (c) => `${add} column ${c.name} (${c.kind}${c.default !== undefined ? `, existing rows get ${JSON.stringify(c.default)}` : ''})`,
    ),
    ...t.addIndexes.map((ix) => `${add} index ${ix.name} on (${ix.columns.join(', ')})${ix.deletedOnly ? ' of the deleted rows' : ''}`),
    ...t.dropIndexes.map((name) => `${drop} index ${name} (replaced)`),
  ];
}

const kept = (t: TablePlan) => t.keptColumns.map((c) => `${t.resource}: kept column ${c}: no field names it (never dropped)`);

/** `mrs migrate --dry-run`: per tenant, per resource, what migrate would do and what it would refuse. */
export function planText(plan: TenantPlan): string {
  const lines = [`tenant ${plan.tenant}`];
  for (const t of plan.tables) {
    const would = [...changes(t, false), ...t.keptColumns.map((c) => `keep column ${c}: no field names it (never dropped)`)];
    // Refusals of the rows' data wait for the pending steps (the step lines below say they are checked after).
    const waiting = (plan.steps?.length ?? 0) > 0;
    const refused = t.refusals.filter((r) => !(waiting && t.curable.includes(r))).map((r) => `REFUSED ${r}`);
    if (would.length + refused.length === 0) lines.push(`  ${t.resource}: nothing to change`);
    else lines.push(`  ${t.resource}:`, ...[...refused, ...would].map((l) => `    ${l}`));
  }
  for (const step of plan.steps ?? []) lines.push(`  step ${step}: would run, then the rules are checked on the rows`);
  for (const r of plan.changedSteps ?? []) lines.push(`  REFUSED ${r}`);
  return lines.join('\n');
}

/** `mrs migrate`'s progress line for a tenant it migrated: what it did, per resource. */
export function migratedLine(plan: TenantPlan): string {
  const did = plan.tables.flatMap((t) => [...changes(t, true).map((c) => `${t.resource}: ${c}`), ...kept(t)]);
  const ran = (plan.steps ?? []).map((s) => `ran step ${s}`);
  const all = [...did, ...ran];
  return `migrated ${plan.tenant}: ${all.length === 0 ? 'nothing to change' : all.join('; ')}`;
}
