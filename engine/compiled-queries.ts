import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { Lru } from './lru.ts';

/**
 * Compiled queries: each compiled once and run many times. Building and compiling a Kysely
 * query costs more than running a small indexed one; the engine's hot queries come in few shapes, so each shape
 * is compiled once per database setup and later runs only fill in its parameters.
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

const SLOT = Symbol('slot');
type Slot = { readonly [SLOT]: number };
const slots: Slot[] = [];
function placeholders(n: number): Slot[] {
  while (slots.length < n) slots.push({ [SLOT]: slots.length });
  return slots.slice(0, n);
}
const slotIndex = (v: unknown): number => (typeof v === 'object' && v !== null && SLOT in v ? (v as Slot)[SLOT] : -1);

interface Template<R> {
  readonly query: CompiledQuery<R>;
  /** For each parameter: the argument it takes, or -1 for a value fixed at compile time. */
  readonly from: readonly number[];
}

/** Compiles `build` with n placeholders and notes which argument each parameter takes. */
function template<R>(build: (...placeholders: any[]) => CompiledQuery<R>, n: number): Template<R> {
  const query = build(...placeholders(n));
  return { query, from: query.parameters.map(slotIndex) };
}

/**
 * A query of one shape whose values are arguments: `build` compiles it with placeholders in
 * their place (use them only as values, never to decide the shape), once per database setup.
 */
export function compiledOnce<A extends readonly unknown[], R = unknown>(
  build: (db: Kysely<any>, ...placeholders: { [K in keyof A]: any }) => CompiledQuery<R>,
): (db: Kysely<any>, ...args: A) => Promise<QueryResult<R>> {
  const templates = new WeakMap<Setup, Template<R>>();
  return (db, ...args) => {
    const setup = setupOf(db);
    let t = templates.get(setup);
    if (!t) templates.set(setup, (t = template((...p) => build(db, ...(p as any)), args.length)));
    return execute(db, t, args);
  };
}

/** The template's query with these arguments in place. */
function filled<R>(t: Template<R>, args: readonly unknown[]): CompiledQuery<R> {
  const fixed = t.query.parameters;
  const parameters = t.from.map((a, i) => (a < 0 ? fixed[i] : args[a]));
  const { query, queryId, sql } = t.query;
  return { query, queryId, sql, parameters }; // not a spread: see engine/http/headers.ts
}

function execute<R>(db: Kysely<any>, t: Template<R>, args: readonly unknown[]): Promise<QueryResult<R>> {
  return db.executeQuery<R>(filled(t, args));
}

type Run<A extends readonly unknown[], R> = (db: Kysely<any>, ...args: A) => Promise<QueryResult<R>>;
type Build<K, A extends readonly unknown[], R> = (key: K, db: Kysely<any>, ...placeholders: { [I in keyof A]: any }) => CompiledQuery<R>;

/** A family's members, each `compiledOnce` on first use of its key, kept in `members`. */
function family<K, A extends readonly unknown[], R>(
  members: { get(key: K): Run<A, R> | undefined; set(key: K, run: Run<A, R>): unknown },
  build: Build<K, A, R>,
) {
  return (key: K, db: Kysely<any>, ...args: A): Promise<QueryResult<R>> => {
    let run = members.get(key);
    if (!run) members.set(key, (run = compiledOnce<A, R>((d, ...p) => build(key, d, ...p))));
    return run(db, ...args);
  };
}

/**
 * Like `compiledOnce`, for a family of shapes told apart by `key` (a collection name, a count): each
 * member is compiled once per database setup.
 */
export const compiledFamily = <A extends readonly unknown[], R = unknown>(build: Build<string, A, R>) =>
  family(new Map<string, Run<A, R>>(), build);

/**
 * Like `compiledFamily`, for shapes decided by an object (a collection's Resource: its fields
 * decide the SQL): each member is compiled once per object and database setup, and forgotten
 * with the object. By the object, not a name: two engines may define a collection of the same
 * name with other fields.
 */
export const compiledPer = <K extends object, A extends readonly unknown[], R = unknown>(build: Build<K, A, R>) =>
  family(new WeakMap<K, Run<A, R>>(), build);

/**
 * Queries of many shapes, each told apart by a key that determines it completely, compiled
 * once per database setup while among the `max` most recently used. For queries whose values
 * partly go through compilers that transform them (filters): those are fixed in the compiled
 * query, so the key must name them; the placeholders stand for the rest.
 */
export function compiledByKey(max = 500) {
  const queries = compiledQueriesByKey(max);
  return <R>(
    db: Kysely<any>,
    key: string,
    build: (...placeholders: any[]) => CompiledQuery<R>,
    ...args: readonly unknown[]
  ): Promise<QueryResult<R>> => db.executeQuery<R>(queries(db, key, build, ...args));
}

/**
 * `compiledByKey`'s statements, given rather than run: for a statement handed to whoever runs it
 * (a driver that runs it right after another, adapters/sqlite).
 */
export function compiledQueriesByKey(max = 500) {
  const bySetup = new WeakMap<Setup, Lru<Template<any>>>();
  return function query<R>(
    db: Kysely<any>,
    key: string,
    build: (...placeholders: any[]) => CompiledQuery<R>,
    ...args: readonly unknown[]
  ): CompiledQuery<R> {
    const setup = setupOf(db);
    let cache = bySetup.get(setup);
    if (!cache) bySetup.set(setup, (cache = new Lru(max)));
    let t = cache.get(key) as Template<R> | undefined;
    if (!t) cache.set(key, (t = template(build, args.length)));
    return filled(t, args);
  };
}
