import type { TenantDb } from '../dialects/types.ts';
import { EngineError, isEngineError } from '../errors.ts';
import type { Registry } from '../registry.ts';
import { tableSpec } from './table.ts';

/** Seconds a client waits before asking again: about what a deploy takes to restart a server. */
export const DEFINITIONS_RETRY_AFTER_S = 5;

/**
 * Why a tenant's tables no longer serve these definitions, or undefined while they do: a table
 * or a field's column is gone (renamed), a column holds another kind, or a column no field names
 * requires a value. A column or index they do not know is no reason: it never disturbs them.
 */
export async function whyTablesDiffer(t: TenantDb, registry: Registry): Promise<string | undefined> {
  const specs = [...registry.resources.values()].map((resource) => tableSpec(resource, t.supports));
  const lives = await t.catalog.liveTables(
    t,
    specs.map((spec) => spec.name),
  );
  for (const spec of specs) {
    const live = lives.get(spec.name);
    if (live === undefined) return `table ${spec.name} is missing`;
    for (const c of spec.columns) {
      const held = live.columns.get(c.name);
      if (held === undefined) return `${spec.name}.${c.name} has no column`;
      if (!held.kinds.includes(c.kind)) return `${spec.name}.${c.name} is of type ${held.type}, not ${c.kind}`;
    }
    const named = new Set(['id', ...spec.columns.map((c) => c.name)]);
    for (const [name, col] of live.columns)
      if (!named.has(name) && col.notNull) return `${spec.name}.${name}, which no field names, requires a value`;
  }
  return undefined;
}

export const definitionsChanged = (tenant: string, why: string): EngineError =>
  new EngineError(
    'definitions-changed',
    `The definitions of tenant ${tenant} changed since this server started (${why}): this server must restart to serve this request. Try again shortly.`,
    [],
    { 'retry-after': String(DEFINITIONS_RETRY_AFTER_S) },
  );

/** What a failed request's tenant was last found to be, per tenant database, for a second: a deploy's storm of failures reads the tables once a second. */
const recent = new WeakMap<TenantDb, { at: number; why: string | undefined }>();
const MEMO_MS = 1000;

/**
 * A request that failed unexpectedly: when its tenant's tables no longer serve these definitions
 * (a deploy migrated them past this server), the 503 that says so; any other failure as it was.
 */
export async function explainFailure(t: TenantDb, registry: Registry, e: unknown): Promise<never> {
  if (isEngineError(e)) throw e;
  let seen = recent.get(t);
  if (seen === undefined || Date.now() - seen.at > MEMO_MS) {
    const why = await whyTablesDiffer(t, registry).catch(() => undefined);
    recent.set(t, (seen = { at: Date.now(), why }));
  }
  if (seen.why !== undefined) throw definitionsChanged(t.key, seen.why);
  throw e;
}
