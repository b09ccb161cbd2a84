import type { ResolvedQuery } from './resolve.ts';
import { sameNames } from './shape.ts';

/**
 * The canonical form of a search, stored with its cursor: filters keyed `field:op` with their
 * sorted values, the order, `$deleted` and the served page size.
 */
export interface CanonicalQuery {
  readonly filters: Readonly<Record<string, readonly string[]>>;
  readonly order: string;
  readonly deleted: boolean;
  readonly limit: number;
  /** `$fields` and `$linked` when the search was made with them: later pages show the same. */
  readonly fields?: readonly string[];
  readonly linked?: readonly string[];
}

const valueKey = (v: unknown) => JSON.stringify(v);

export function canonicalize(q: ResolvedQuery): CanonicalQuery {
  const filters: Record<string, string[]> = {};
  for (const f of [...q.filters].sort((a, b) => (`${a.field}:${a.op}` < `${b.field}:${b.op}` ? -1 : 1)))
    filters[`${f.field}:${f.op}`] = f.values.map(valueKey).sort();
  const canonical: { -readonly [K in keyof CanonicalQuery]: CanonicalQuery[K] } = {
    filters,
    order: `${q.order.field}:${q.order.direction}`,
    deleted: q.deleted,
    limit: q.limit,
  };
  // Left out when not asked: a plain search's cursor is stored as before.
  if (q.fields) canonical.fields = q.fields;
  if (q.linked) canonical.linked = q.linked;
  return canonical;
}

type Problem = { parameter: string; message: string };

/**
 * A later request of a cursor may repeat `$limit`, `$orderBy`, `$deleted`, `$fields`, `$linked` and filters, each
 * with exactly the cursor's own (normalized) values; filters may be left out.
 */
export function followUpProblems(stored: CanonicalQuery, request: ResolvedQuery): Problem[] {
  const now = canonicalize(request);
  const problems: Problem[] = [];
  const differs = (parameter: string, what: string) =>
    problems.push({ parameter, message: `differs from the cursor's ${what}; send the cursor's own value or leave it out` });
  if (request.given.limit && now.limit !== stored.limit) differs('$limit', `page size ${stored.limit}`);
  if (request.given.order && now.order !== stored.order) differs('$orderBy', `order ${stored.order}`);
  if (request.given.deleted && now.deleted !== stored.deleted) differs('$deleted', `$deleted=${stored.deleted}`);
  if (request.given.fields && !sameNames(now.fields, stored.fields))
    differs('$fields', stored.fields ? `$fields=${stored.fields.join(',')}` : 'lack of $fields');
  if (request.given.linked && !sameNames(now.linked, stored.linked))
    differs('$linked', stored.linked ? `$linked=${stored.linked.join(',')}` : 'lack of $linked');
  for (const f of request.filters) {
    const key = `${f.field}:${f.op}`;
    const values = now.filters[key]!;
    const original = stored.filters[key];
    const parameter = f.params.join(', ');
    if (!original) problems.push({ parameter, message: 'the cursor was not created with this filter' });
    else if (original.length !== values.length || original.some((v, i) => v !== values[i])) differs(parameter, `values for ${key}`);
  }
  return problems;
}
