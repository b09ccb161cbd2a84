/** The event streams an engine is serving: counted for metrics, ended together when it closes. */
export interface EventStreams {
  /** Streams open now. */
  readonly open: number;
  /** Ends every open stream (each client reconnects with Last-Event-ID, to a server still serving). */
  endAll(): void;
}

/** An engine's open streams, each known by the function that ends it. */
export class OpenStreams implements EventStreams {
  readonly #ends = new Set<() => void>();

  get open(): number {
    return this.#ends.size;
  }

  /** Counts a stream until the returned function is called (when it ended, however). */
  add(end: () => void): () => void {
    this.#ends.add(end);
    return () => void this.#ends.delete(end);
  }

  endAll(): void {
    for (const end of [...this.#ends]) end();
  }
}
