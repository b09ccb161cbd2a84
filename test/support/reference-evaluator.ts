/**
 * A small in-memory evaluator of list queries, written from SPEC section 4 alone (no engine
 * code): the differential test holds SQLite and PostgreSQL to it. It takes the query parameters
 * as the server sees them (percent-decoded) and answers the ids of the matching records in order,
 * or the names of the offending parameters.
 */

export type Kind = 'integer' | 'number' | 'string' | 'date' | 'timestamp' | 'boolean';
export type Value = number | string | boolean | null;
export type Row = { readonly id: number } & Readonly<Record<string, Value>>;

export interface ReferenceResource {
  /** Every field with its kind, system fields included. */
  readonly fields: Readonly<Record<string, Kind>>;
  readonly filterable: readonly string[];
}

export type Answer = { ok: true; ids: number[]; total: number } | { ok: false; parameters: string[] };

const RANGE_OPS = ['gt', 'gte', 'lt', 'lte'];
const ALL_OPS = ['eq', 'ne', ...RANGE_OPS, 'like', 'ilike', 'null'];

/** -1, 0, 1 by Unicode code point. */
export function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return Math.sign(x.length - y.length);
}

function compareValues(a: Value, b: Value): number {
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return Math.sign(Number(a) - Number(b));
}

const realDate = (s: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m || m[1] === '0000') return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return days !== undefined && d >= 1 && d <= days;
};

function typed(kind: Kind, s: string): { ok: true; value: Value } | { ok: false } {
  switch (kind) {
    case 'integer':
      return /^[+-]?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? { ok: true, value: Number(s) } : { ok: false };
    case 'number': {
      // A decimal, at most 15 significant digits once read as a double, and not too small to keep them.
      const n = Number(s);
      const digits = Math.abs(n).toExponential().split('e')[0]!.replace('.', '').length;
      const ok = /^[+-]?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(s) && Number.isFinite(n) && digits <= 15 && (n === 0 || Math.abs(n) >= 1e-307);
      return ok ? { ok: true, value: n } : { ok: false };
    }
    case 'date':
      return realDate(s) ? { ok: true, value: s } : { ok: false };
    case 'boolean':
      return s === 'true' || s === 'false' ? { ok: true, value: s === 'true' } : { ok: false };
    case 'timestamp':
      return Number.isNaN(Date.parse(s)) ? { ok: false } : { ok: true, value: new Date(s).toISOString() };
    case 'string':
      return s.includes('\u0000') ? { ok: false } : { ok: true, value: s };
  }
}

type Token = { any: true } | { one: true } | { lit: number };

/** A LIKE pattern as tokens: % any run, _ one code point, \x the literal x; undefined when it ends in a lone \. */
function likeTokens(pattern: string, fold: boolean): Token[] | undefined {
  const cps = Array.from(pattern, (c) => c.codePointAt(0)!);
  const tokens: Token[] = [];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === 0x5c) {
      if (i + 1 >= cps.length) return undefined;
      tokens.push({ lit: foldCp(cps[++i]!, fold) });
    } else if (c === 0x25) tokens.push({ any: true });
    else if (c === 0x5f) tokens.push({ one: true });
    else tokens.push({ lit: foldCp(c, fold) });
  }
  return tokens;
}

/** ilike folds ASCII letters only. */
const foldCp = (c: number, fold: boolean) => (fold && c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

function likeMatches(tokens: Token[], text: string, fold: boolean): boolean {
  const t = Array.from(text, (c) => foldCp(c.codePointAt(0)!, fold));
  // can[j]: the tokens so far can match the first j code points
  let can = t.map(() => false).concat(false);
  can[0] = true;
  for (const tok of tokens) {
    const next = can.map(() => false);
    for (let j = 0; j <= t.length; j++) {
      if ('any' in tok) next[j] = can[j]! || (j > 0 && next[j - 1]!);
      else if (j > 0 && can[j - 1]) next[j] = 'one' in tok || t[j - 1] === tok.lit;
    }
    can = next;
  }
  return can[t.length]!;
}

type Condition = (row: Row) => boolean;

/** Evaluates a list query over the rows (`scope`: a child list's parent link). */
export function evaluate(
  resource: ReferenceResource,
  rows: readonly Row[],
  params: readonly (readonly [string, string])[],
  scope?: { field: string; id: number },
): Answer {
  const bad: string[] = [];
  let deleted = false;
  let order = { field: 'id', desc: false };
  let limit = 10;
  const seenReserved = new Set<string>();
  const groups = new Map<string, { field: string; op: string; values: Value[]; patterns: Token[][] }>();
  for (const [name, value] of params) {
    if (name.startsWith('$')) {
      if (seenReserved.has(name)) {
        bad.push(name);
        continue;
      }
      seenReserved.add(name);
      if (name === '$deleted' && (value === 'true' || value === 'false')) deleted = value === 'true';
      else if (name === '$limit' && /^\d+$/.test(value) && Number(value) >= 1) limit = Math.min(Number(value), 50);
      else if (name === '$orderBy') {
        const m = /^\s*([a-z0-9_]+)(?:(?::|\s+)(asc|desc))?\s*$/.exec(value);
        if (m && Object.hasOwn(resource.fields, m[1]!)) order = { field: m[1]!, desc: m[2] === 'desc' };
        else bad.push(name);
      } else bad.push(name);
      continue;
    }
    const colon = name.indexOf(':');
    const field = colon < 0 ? name : name.slice(0, colon);
    const op = colon < 0 ? 'eq' : name.slice(colon + 1);
    const kind = resource.fields[field];
    if (!resource.filterable.includes(field) || kind === undefined || !ALL_OPS.includes(op)) {
      bad.push(name);
      continue;
    }
    const key = `${field}:${op}`;
    const group = groups.get(key) ?? { field, op, values: [], patterns: [] };
    if (groups.has(key) && (RANGE_OPS.includes(op) || op === 'null')) {
      bad.push(name);
      continue;
    }
    if (op === 'null') {
      if (value !== '' && value !== 'true' && value !== 'false') bad.push(name);
      else group.values.push(value !== 'false');
    } else if (value === '') bad.push(name);
    else if (op === 'like' || op === 'ilike') {
      const tokens = kind === 'string' && !value.includes('\u0000') ? likeTokens(value, op === 'ilike') : undefined;
      if (!tokens) bad.push(name);
      else group.patterns.push(tokens);
    } else if (RANGE_OPS.includes(op) && kind === 'boolean') bad.push(name);
    else {
      const v = typed(kind, value);
      if (!v.ok) bad.push(name);
      else group.values.push(v.value);
    }
    groups.set(key, group);
  }
  if (bad.length) return { ok: false, parameters: bad };

  const conditions: Condition[] = [];
  if (!deleted) conditions.push((r) => r.deleted === false);
  if (scope) conditions.push((r) => r[scope.field] === scope.id);
  for (const { field, op, values, patterns } of groups.values()) {
    const v = values[0]!;
    const has = (r: Row) => r[field] !== null && r[field] !== undefined;
    const eq = (r: Row, x: Value) => has(r) && compareValues(r[field]!, x) === 0;
    const CONDITIONS: Record<string, Condition> = {
      eq: (r) => values.some((x) => eq(r, x)),
      ne: (r) => !values.some((x) => eq(r, x)),
      gt: (r) => has(r) && compareValues(r[field]!, v) > 0,
      gte: (r) => has(r) && compareValues(r[field]!, v) >= 0,
      lt: (r) => has(r) && compareValues(r[field]!, v) < 0,
      lte: (r) => has(r) && compareValues(r[field]!, v) <= 0,
      like: (r) => has(r) && patterns.some((p) => likeMatches(p, String(r[field]), false)),
      ilike: (r) => has(r) && patterns.some((p) => likeMatches(p, String(r[field]), true)),
      null: (r) => has(r) !== v,
    };
    conditions.push(CONDITIONS[op]!);
  }
  const matching = rows.filter((r) => conditions.every((c) => c(r)));
  const sign = order.desc ? -1 : 1;
  const sorted = [...matching].sort((a, b) => {
    const [x, y] = [a[order.field] ?? null, b[order.field] ?? null];
    // empty values sort as the largest
    const byValue = x === null || y === null ? (x === y ? 0 : x === null ? 1 : -1) : compareValues(x, y);
    return byValue * sign || a.id - b.id;
  });
  return { ok: true, ids: sorted.slice(0, limit).map((r) => r.id), total: sorted.length };
}
