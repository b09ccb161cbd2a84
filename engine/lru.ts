/**
 * A map bounded by the total size of its values (by default their count), least recently used
 * out first: `get` and `set` make an entry the most recent.
 */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  private used = 0;
  constructor(
    private readonly max: number,
    private readonly sizeOf: (v: V) => number = () => 1,
  ) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.delete(key);
    this.map.set(key, v);
    this.used += this.sizeOf(v);
    for (const [k] of this.map) {
      if (this.used <= this.max) break;
      this.delete(k);
    }
  }
  delete(key: string): void {
    const old = this.map.get(key);
    if (old === undefined) return;
    this.map.delete(key);
    this.used -= this.sizeOf(old);
  }
}
