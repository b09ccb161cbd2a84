import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { ShapeCache, shapeText } from './shape-cache.ts';

/**
 * Compiled statements: each compiled once per shape and database setup, run many times. Building
 * and compiling a Kysely query costs more than running a small indexed one; the engine's hot
 * statements come in few shapes, so each shape is compiled once and later runs only fill in its
 * values (docs/sql.md).
 *
 * A statement declares what decides its SQL (its shape: a table, the columns written, a count)
 * apart from its values (named placeholders): the cache key is derived from the shape, and the
 * builder sees only the shape and the placeholders, so it cannot read what the key misses.
 *
 * A compiled query depends on the dialect and the plugins (on PostgreSQL, the tenant's schema),
 * not on the connection: a transaction shares its database's adapter and plugin objects, so it
 * shares its compiled queries too.
 */

type Setup = object;
const ROOT: Setup = {};
const children = new WeakMap<object, WeakMap<object, Setup>>();

function child(parent: Setup, key: object): Setup {
  let byKey = children.get(parent);
  if (!byKey) children.set(parent, (byKey = new WeakMap()));
  let c = byKey.get(key);
  if (!c) byKey.set(key, (c = {}));
  return c;
}

/** One object per (dialect adapter, plugin objects): the key under which compiled queries live. */
function setupOf(db: Kysely<any>): Setup {
  const executor = db.getExecutor();
  let level = child(ROOT, executor.adapter);
  for (const plugin of executor.plugins) level = child(level, plugin);
  return level;
}

/** Where a value goes: named `name`, or item `item` of the list named `name`. */
class Slot {
  constructor(
    readonly name: string,
    readonly item: number,
  ) {}
}

declare const PLACEHOLDER: unique symbol;
/** What a builder puts where a value goes; it decides nothing (the SQL must not depend on it). */
export type Placeholder = { readonly [PLACEHOLDER]: true };
/** A list's placeholder: its items by index (how many is the shape's to say). */
export interface ListPlaceholder {
  at(i: number): Placeholder;
}
/** A builder's placeholders, one per value by the value's name. */
export type Placeholders<V> = { readonly [K in keyof V]-?: NonNullable<V[K]> extends readonly unknown[] ? ListPlaceholder : Placeholder };

/** The names a builder read, each a scalar (-1) or a list (its highest item read). */
type Reads = Map<string, number>;

/** Placeholders that note what the builder reads. */
function placeholders(reads: Reads): Placeholders<any> {
  const slots = new Map<string, Slot & ListPlaceholder>();
  return new Proxy({} as Placeholders<any>, {
    get(_, name) {
      if (typeof name !== 'string') return undefined;
      let s = slots.get(name);
      if (!s) {
        const items: Slot[] = [];
        reads.set(name, reads.get(name) ?? -1);
        s = Object.assign(new Slot(name, -1), {
          at: (i: number) => {
            reads.set(name, Math.max(reads.get(name)!, i));
            return (items[i] ??= new Slot(name, i)) as unknown as Placeholder;
          },
        });
        slots.set(name, s);
      }
      return s;
    },
  });
}

/** A query, or anything compiled like one (a `sql` template, a builder). */
export interface Compilable<R> {
  compile(db: Kysely<any>): CompiledQuery<R>;
}

interface Template<R> {
  readonly query: CompiledQuery<R>;
  /** For each parameter: the value's name, or undefined for a value fixed at compile time. */
  readonly names: readonly (string | undefined)[];
  /** For each parameter: the item of its list, or -1. */
  readonly items: readonly number[];
}

/** The template's query with these values in place. */
function filled<R>(t: Template<R>, values: Record<string, any>): CompiledQuery<R> {
  const fixed = t.query.parameters;
  const parameters = new Array<unknown>(fixed.length);
  for (let i = 0; i < fixed.length; i++) {
    const name = t.names[i];
    const item = t.items[i]!;
    parameters[i] = name === undefined ? fixed[i] : item < 0 ? values[name] : values[name][item];
  }
  const { query, queryId, sql } = t.query;
  return { query, queryId, sql, parameters };
}

/** The shape as its builder sees it: its own enumerable keys only, read once. */
function copyOf<S extends object>(shape: S): S {
  const copy = {} as Record<string, unknown>;
  for (const name in shape) copy[name] = shape[name];
  return copy as S;
}

/** A statement compiled once per shape and database setup. */
export interface CompiledStatement<S extends object, V extends object, R> {
  readonly name: string;
  /** Runs it with these values. */
  run(db: Kysely<any>, shape: S, values: V): Promise<QueryResult<R>>;
  /** The compiled query, given rather than run: for a statement handed to whoever runs it (a driver that runs it right after another). */
  query(db: Kysely<any>, shape: S, values: V): CompiledQuery<R>;
}

type Builder<S, V, R> = (db: Kysely<any>, shape: S, p: Placeholders<V>) => Compilable<R>;

/**
 * A statement whose SQL `build` decides from `shape` alone, its values named placeholders (use
 * them only as values, never to decide the SQL), compiled once per shape and database setup
 * while among the `max` shapes most recently used there.
 */
export function compiledStatement<S extends object, V extends object = Record<never, never>, R = unknown>(
  name: string,
  build: Builder<S, V, R>,
  max = 100,
): CompiledStatement<S, V, R> {
  const bySetup = new WeakMap<Setup, ShapeCache<Template<R>>>();
  const statement: CompiledStatement<S, V, R> = {
    name,
    run: (db, shape, values) => db.executeQuery<R>(statement.query(db, shape, values)),
    query(db, shape, values) {
      const setup = setupOf(db);
      let cache = bySetup.get(setup);
      if (!cache) bySetup.set(setup, (cache = new ShapeCache(max)));
      let t = cache.get(shape);
      if (!t) cache.set(shape, (t = template(statement, build, db, shape)));
      return filled(t, values as Record<string, unknown>);
    },
  };
  return statement;
}

function template<S extends object, V extends object, R>(
  statement: CompiledStatement<S, V, R>,
  build: Builder<S, V, R>,
  db: Kysely<any>,
  shape: S,
): Template<R> {
  const reads: Reads = new Map();
  const copy = copyOf(shape);
  const query = build(db, copy, placeholders(reads) as Placeholders<V>).compile(db);
  const slots = query.parameters.map((p) => (p instanceof Slot ? p : undefined));
  tracked?.push({ statement, build: build as unknown as Builder<any, any, unknown>, db, shape: copy, reads, query });
  return { query, names: slots.map((s) => s?.name), items: slots.map((s) => s?.item ?? -1) };
}

/** A shape a statement was compiled with, noted while tracking (trackShapes). */
export interface UsedShape {
  readonly statement: CompiledStatement<any, any, unknown>;
  readonly build: Builder<any, any, unknown>;
  readonly db: Kysely<any>;
  readonly shape: object;
  readonly reads: Reads;
  readonly query: CompiledQuery<unknown>;
}

let tracked: UsedShape[] | undefined;

/** Notes every shape compiled from now on (for a test): the list grows as statements compile. */
export function trackShapes(): readonly UsedShape[] {
  return (tracked ??= []);
}

/** Values for what a builder read: `kind` a-strings or b-numbers, so two sets differ in type and value. */
function valuesFor(reads: Reads, kind: 'a' | 'b'): Record<string, unknown> {
  let n = 0;
  const value = (label: string) => (kind === 'a' ? `a:${label}` : 1000 + n++);
  const values: Record<string, unknown> = {};
  for (const [name, top] of reads) values[name] = top < 0 ? value(name) : Array.from({ length: top + 1 }, (_, i) => value(`${name}[${i}]`));
  return values;
}

/**
 * What is wrong with a shape's compiled statement: built with two other sets of values (not
 * placeholders), its SQL must be the one compiled, and its parameters those the cached statement
 * fills in. Empty when nothing is.
 */
export function valueProblems(u: UsedShape): string[] {
  const problems: string[] = [];
  const t: Template<unknown> = {
    query: u.query,
    names: u.query.parameters.map((p) => (p instanceof Slot ? p.name : undefined)),
    items: u.query.parameters.map((p) => (p instanceof Slot ? p.item : -1)),
  };
  for (const kind of ['a', 'b'] as const) {
    const values = valuesFor(u.reads, kind);
    const query = u.build(u.db, copyOf(u.shape), values as Placeholders<any>).compile(u.db);
    if (query.sql !== u.query.sql)
      problems.push(`${u.statement.name} ${shapeText(u.shape)}: SQL differs with values ${kind}:\n${query.sql}\n${u.query.sql}`);
    else if (JSON.stringify(query.parameters) !== JSON.stringify(filled(t, values).parameters))
      problems.push(`${u.statement.name} ${shapeText(u.shape)}: parameters with values ${kind} are not those filled in`);
  }
  return problems;
}
