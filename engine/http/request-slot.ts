/**
 * A value per request, worked out once however many parts ask (its target, its id, its route
 * label): a WeakMap keyed by the Request, in effect, kept on the Request itself under a symbol
 * of this slot's own. A WeakMap entry for a key that lives one request costs the garbage
 * collector ephemeron work, many times what properties cost (BENCHMARKS.md). A Request that takes no properties (frozen) falls back to a WeakMap.
 */
export interface RequestSlot<T> {
  get(req: Request): T | undefined;
  set(req: Request, value: T): void;
}

export function requestSlot<T>(name: string): RequestSlot<T> {
  const key = Symbol(name);
  const fallback = new WeakMap<Request, T>();
  type Holder = { [key]?: T };
  return {
    get: (req) => (req as unknown as Holder)[key] ?? fallback.get(req),
    set(req, value) {
      if (Object.isExtensible(req)) (req as unknown as Holder)[key] = value;
      else fallback.set(req, value);
    },
  };
}
