/** What the client knows of one collection's types; `mrs client generate` writes them per deployment. */
export interface CollectionTypes {
  readonly path: string;
  readonly record: { id: number };
  readonly create: object;
  readonly patch: object;
  readonly put: object;
  /** Query parameters: `field` and `field:operator` for each operator the field's kind takes. */
  readonly filters: object;
  readonly orderBy: string;
  /** `$linked` names -> the child's record. */
  readonly linked: object;
  readonly fields: string;
}

export type Json = string | number | boolean | null;
type Loose = Record<string, unknown> & { id: number; created: string; updated: string; deleted: boolean };

/** Any collection, when no generated types are given. */
export interface AnyCollection extends CollectionTypes {
  readonly record: Loose;
  readonly create: Record<string, unknown>;
  readonly patch: Record<string, unknown>;
  readonly put: Record<string, unknown>;
  readonly filters: Record<string, Json | readonly Json[] | undefined>;
  readonly orderBy: string;
  readonly linked: Record<string, Loose>;
  readonly fields: string;
}

/** A deployment's collections by name. */
export type Schema = { readonly [name: string]: CollectionTypes };

/** A search's parameters: the filters, then the `$` parameters. */
export type Query<C extends CollectionTypes, F extends string = never, L extends string = never> = C['filters'] & {
  readonly $orderBy?: C['orderBy'];
  readonly $limit?: number;
  readonly $deleted?: boolean;
  readonly $fields?: readonly F[];
  readonly $linked?: readonly L[];
};

/** A record as a search with `$fields` and `$linked` answers it. */
export type Shaped<C extends CollectionTypes, F extends string, L extends string> = ([F] extends [never]
  ? C['record']
  : Pick<C['record'], Extract<F | 'id', keyof C['record']>>) &
  ([L] extends [never] ? unknown : { linked: { [K in L]: (K extends keyof C['linked'] ? C['linked'][K] : never)[] } });

/** The collection types for a name: the schema's, or loose ones. */
export type CollectionOf<S extends Schema, N extends string> = N extends keyof S ? S[N] : AnyCollection;

/** Turns a query object into its parameters: arrays repeat, `$fields` and `$linked` are comma-joined. */
export function queryString(query: object | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (name === '$fields' || name === '$linked') params.set(name, (value as string[]).join(','));
    else if (Array.isArray(value)) for (const v of value) params.append(name, String(v));
    else params.set(name, String(value));
  }
  return params;
}
