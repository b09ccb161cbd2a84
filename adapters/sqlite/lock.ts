/**
 * A FIFO lock on the connection: one transaction (or lone statement) at a time. Taking a free
 * lock costs no promise; a release hands the lock straight to the next in line.
 */
export class Lock {
  #held = false;
  readonly #queue: (() => void)[] = [];
  /** Undefined when taken at once; else a promise that settles once it is this caller's. */
  acquire(): Promise<void> | undefined {
    if (!this.#held) {
      this.#held = true;
      return undefined;
    }
    return new Promise<void>((resolve) => this.#queue.push(resolve));
  }
  release = (): void => {
    const next = this.#queue.shift();
    if (next) next();
    else this.#held = false;
  };
}
