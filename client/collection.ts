import { NotFound, PreconditionFailed } from './errors.ts';
import { Search, type Position } from './search.ts';
import type { Transport } from './transport.ts';
import { queryString, type CollectionTypes, type Query, type Shaped } from './types.ts';

/** The ETag each record object came with (a read, a create, a write), for If-Match and If-None-Match. */
const tags = new WeakMap<object, string>();

/** The tag a record came with, if it came from a read or a write of one record. */
export const etagOf = (record: object): string | undefined => tags.get(record);

async function tagged<R extends object>(res: Response): Promise<R> {
  const record = (await res.json()) as R;
  const tag = res.headers.get('etag');
  if (tag && record && typeof record === 'object') tags.set(record, tag);
  return record;
}

export interface WriteOptions {
  /** false: no If-Match; a string: that tag. Default: the tag the record given came with. */
  readonly ifMatch?: boolean | string;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

export interface SearchOptions extends Partial<Position> {
  /** Through `{base}/bulk/...`, as the real service's clients read. */
  readonly bulk?: boolean;
  readonly signal?: AbortSignal;
}

type IdOf = number | { readonly id: number };

/** Whether a record holds every field of a body as sent (values the server rewrites, as a timestamp's offset, count as not). */
const holds = (record: object, body: object) =>
  Object.entries(body).every(([k, v]) => JSON.stringify((record as Record<string, unknown>)[k]) === JSON.stringify(v));
const idOf = (r: IdOf) => (typeof r === 'number' ? r : r.id);

/** One collection's records (or one parent's children, `child(id, name)`). */
export class Collection<C extends CollectionTypes> {
  constructor(
    protected readonly transport: Transport,
    /** Its path under the base URL. */
    readonly path: string,
  ) {}

  /**
   * A search: the first page (or the page `position` names) with the total, the cursor and the
   * feed's seq; iterate it for every record once. With `cursor` and `page`, it resumes a search.
   */
  async search<const F extends C['fields'] = never, const L extends keyof C['linked'] & string = never>(
    query?: Query<C, F, L>,
    options: SearchOptions = {},
  ): Promise<Search<Shaped<C, F, L>>> {
    const path = options.bulk ? `bulk/${this.path}` : this.path;
    const params = options.cursor ? new URLSearchParams({ $cursor: options.cursor, $page: String(options.page ?? 1) }) : queryString(query);
    if (!options.cursor && options.page !== undefined) params.set('$page', String(options.page));
    const signal = options.signal ? { signal: options.signal } : {};
    const res = await this.transport.send('GET', path, { query: params, ...signal });
    const first = (await res.json()) as Shaped<C, F, L>[];
    return new Search(this.transport, path, res, first, options.signal);
  }

  /** Every record of a search, once: `for await (const r of collection.list(query))`. */
  async *list<const F extends C['fields'] = never, const L extends keyof C['linked'] & string = never>(
    query?: Query<C, F, L>,
    options?: SearchOptions,
  ): AsyncGenerator<Shaped<C, F, L>> {
    yield* await this.search(query, options);
  }

  /**
   * One record. With `ifNoneMatch` (a record read before, or its tag), a 304 answers that record
   * itself, unchanged.
   */
  async get<const F extends C['fields'] = never, const L extends keyof C['linked'] & string = never>(
    id: number,
    options: {
      ifNoneMatch?: object | string;
      $fields?: readonly F[];
      $linked?: readonly L[];
      $deleted?: boolean;
      signal?: AbortSignal;
    } = {},
  ): Promise<Shaped<C, F, L>> {
    const { ifNoneMatch, signal, ...shape } = options;
    const tag = typeof ifNoneMatch === 'string' ? ifNoneMatch : ifNoneMatch && tags.get(ifNoneMatch);
    const res = await this.transport.send('GET', `${this.path}/${id}`, {
      query: queryString(shape),
      headers: tag ? { 'if-none-match': tag } : {},
      accept: [304],
      ...(signal ? { signal } : {}),
    });
    if (res.status === 304) return ifNoneMatch as Shaped<C, F, L>;
    return tagged(res);
  }

  async create(body: C['create'], options: WriteOptions = {}): Promise<C['record']> {
    return tagged(await this.transport.send('POST', this.path, { json: body, ...this.write(undefined, options) }));
  }

  /** Changes the fields sent; If-Match from the record given unless turned off. */
  async patch(record: IdOf, body: C['patch'], options: WriteOptions = {}): Promise<C['record']> {
    return tagged(await this.transport.send('PATCH', `${this.path}/${idOf(record)}`, { json: body, ...this.write(record, options) }));
  }

  /**
   * Replaces the record (missing optional fields reset); If-Match as for patch. The server keeps
   * no answer for a PUT, so a retry that meets 412 reads the record: holding what was sent, the
   * write stands (its first attempt was carried out, its answer lost) and the record is answered.
   */
  async put(record: IdOf, body: C['put'], options: WriteOptions = {}): Promise<C['record']> {
    const id = idOf(record);
    try {
      return await tagged(await this.transport.send('PUT', `${this.path}/${id}`, { json: body, ...this.write(record, options) }));
    } catch (e) {
      if (!(e instanceof PreconditionFailed && e.retried)) throw e;
      const current = await this.get(id, options.signal ? { signal: options.signal } : {});
      if (!holds(current, body)) throw e;
      return current;
    }
  }

  /**
   * A soft delete; If-Match as for patch. The server keeps no answer for a DELETE, so a retry
   * that meets 404 reads the record: found deleted, the delete stands (the record is gone as asked).
   */
  async delete(record: IdOf, options: WriteOptions = {}): Promise<void> {
    const id = idOf(record);
    try {
      const res = await this.transport.send('DELETE', `${this.path}/${id}`, this.write(record, options));
      await res.body?.cancel();
    } catch (e) {
      if (!(e instanceof NotFound && e.retried)) throw e;
      const found = await this.get(id, { $deleted: true, ...(options.signal ? { signal: options.signal } : {}) }).catch(() => undefined);
      if ((found as { deleted?: unknown } | undefined)?.deleted !== true) throw e;
    }
  }

  /** The children of one record: `work_orders.child(7, 'notes')`. */
  child<N extends string>(id: number, name: N): Collection<any> {
    return new Collection(this.transport, `${this.path}/${id}/${name}`);
  }

  private write(record: IdOf | undefined, options: WriteOptions) {
    const headers: Record<string, string> = {};
    const wanted = options.ifMatch ?? this.transport.options.ifMatch ?? true;
    const tag = typeof wanted === 'string' ? wanted : wanted && typeof record === 'object' ? tags.get(record) : undefined;
    if (tag) headers['if-match'] = tag;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    return { headers, ...(options.signal ? { signal: options.signal } : {}) };
  }
}
