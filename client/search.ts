import type { Transport } from './transport.ts';

/** Where a search stands: enough to resume it after a crash (`collection.search(q, position)`). */
export interface Position {
  readonly cursor: string;
  readonly page: number;
}

/** The page `rel` names in a Link header. */
function linkedPage(link: string | null, rel: string): number | undefined {
  const m = new RegExp(`[?&]\\$page=(\\d+)>; rel="${rel}"`).exec(link ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * One search: its total, its cursor and its pages. Iterating it yields each record once, page by
 * page from the page it started at; a page that fails throws (never a listing silently cut short).
 */
export class Search<R> implements AsyncIterable<R> {
  /** The records matching when the search was made. */
  readonly total: number;
  /** Empty when nothing matched. */
  readonly cursor: string;
  /** The change feed's seq the snapshot reflects: follow the feed from it. */
  readonly changeSeq: number | undefined;
  /** How many pages the search has. */
  readonly pages: number;
  /** The page `first` holds. */
  readonly startPage: number;
  private done: number;

  constructor(
    private readonly transport: Transport,
    private readonly path: string,
    res: Response,
    /** The records of the page answered first. */
    readonly first: R[],
    private readonly signal?: AbortSignal,
  ) {
    const h = res.headers;
    this.total = Number(h.get('x-total') ?? first.length);
    this.cursor = h.get('x-cursor') ?? '';
    const seq = h.get('x-change-seq');
    this.changeSeq = seq === null ? undefined : Number(seq);
    this.pages = linkedPage(h.get('link'), 'last') ?? 0;
    const prev = linkedPage(h.get('link'), 'prev');
    const next = linkedPage(h.get('link'), 'next');
    this.startPage = next !== undefined ? next - 1 : prev !== undefined ? Math.min(prev + 1, this.pages + 1) : 1;
    this.done = this.startPage - 1;
  }

  /** One page's records, by number (pages past the end are empty). */
  async page(n: number): Promise<R[]> {
    if (!this.cursor) return [];
    const query = `$cursor=${encodeURIComponent(this.cursor)}&$page=${n}`;
    const res = await this.transport.send('GET', this.path, { query, ...(this.signal ? { signal: this.signal } : {}) });
    return (await res.json()) as R[];
  }

  /** The first page not yet handed over and finished with by iterating: resume from here after a crash. */
  get position(): Position {
    return { cursor: this.cursor, page: this.done + 1 };
  }

  /** Each page from the one the search started at, once, with its number. */
  async *byPage(): AsyncGenerator<{ page: number; records: R[] }> {
    if (this.first.length) yield { page: this.startPage, records: this.first };
    this.done = this.startPage;
    for (let n = this.startPage + 1; n <= this.pages; n++) {
      const records = await this.page(n);
      yield { page: n, records };
      this.done = n;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<R> {
    for await (const { records } of this.byPage()) yield* records;
  }
}
