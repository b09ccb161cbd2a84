/**
 * A map keyed by shapes: plain data (strings, numbers, booleans, null, undefined, arrays and
 * plain objects of them) compared by content, a frozen object (a definition) by itself. A lookup
 * walks the shape through nested maps, one step a value: no key string is built per call.
 * Bounded: past `max` entries the least recently used goes.
 */

const OBJECT = Symbol('object');
const ARRAY = Symbol('array');
const END = Symbol('end');

class Node<T> {
  next: Map<unknown, Node<T>> | undefined;
  frozen: WeakMap<object, Node<T>> | undefined;
  value: T | undefined;
  constructor(
    readonly parent: Node<T> | undefined,
    readonly key: unknown,
  ) {}
}

export class ShapeCache<T> {
  readonly #root = new Node<T>(undefined, undefined);
  /** The nodes holding a value, least recently used first. */
  readonly #used = new Set<Node<T>>();
  constructor(private readonly max: number) {}

  get(shape: object): T | undefined {
    const node = walk(this.#root, shape, false);
    if (node?.value === undefined) return undefined;
    // Recency kept only once it may matter: most statements have a few shapes and never drop one.
    if (this.#used.size > this.max >> 1) {
      this.#used.delete(node);
      this.#used.add(node);
    }
    return node.value;
  }

  set(shape: object, value: T): void {
    const node = walk(this.#root, shape, true)!;
    node.value = value;
    this.#used.delete(node);
    this.#used.add(node);
    for (const old of this.#used) {
      if (this.#used.size <= this.max) break;
      this.#used.delete(old);
      old.value = undefined;
      prune(old);
    }
  }
}

/** Removes a node left with no value and no children, and so on up its path. */
function prune<T>(node: Node<T>): void {
  for (let n = node; n.parent && n.value === undefined && !n.next?.size && !n.frozen; n = n.parent) {
    if (typeof n.key === 'object' && n.key !== null) n.parent.frozen?.delete(n.key);
    else n.parent.next?.delete(n.key);
  }
}

function step<T>(node: Node<T>, key: unknown, make: boolean): Node<T> | undefined {
  let next = node.next?.get(key);
  if (!next && make) (node.next ??= new Map()).set(key, (next = new Node(node, key)));
  return next;
}

/** The node at the end of `v`'s path from `node`, made where missing when `make`. */
function walk<T>(node: Node<T> | undefined, v: unknown, make: boolean): Node<T> | undefined {
  if (node === undefined) return undefined;
  if (typeof v !== 'object' || v === null) {
    if (typeof v === 'function' || typeof v === 'symbol') throw new TypeError(`a shape holds a ${typeof v}: only data and frozen objects`);
    return step(node, v, make);
  }
  if (Object.isFrozen(v)) {
    let next = node.frozen?.get(v);
    if (!next && make) (node.frozen ??= new WeakMap()).set(v, (next = new Node(node, v)));
    return next;
  }
  if (Array.isArray(v)) {
    node = step(node, ARRAY, make);
    for (let i = 0; i < v.length && node; i++) node = walk(node, v[i], make);
  } else {
    node = step(node, OBJECT, make);
    for (const name in v) node = walk(node && step(node, name, make), (v as Record<string, unknown>)[name], make);
  }
  return node && step(node, END, make);
}

/** A shape as text, for messages. */
export const shapeText = (shape: object): string =>
  JSON.stringify(shape, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && Object.isFrozen(v) ? `<${(v as { name?: string }).name ?? 'frozen'}>` : v,
  );
