/** How an {@link LruCache} bounds what it holds besides its entry count. */
export interface LruWeights<V> {
  /** Most total weight kept (for example estimated bytes); past it, the least recently used go. */
  readonly maxWeight: number;
  /** An entry's weight, asked once when it is stored; at least 0. */
  readonly weigh: (value: V) => number;
}

/**
 * A Map with a size bound: past `maxSize` entries, the least recently used one is dropped. For
 * caches whose keys come from request input (a statement per search shape), which would
 * otherwise grow with every new shape a client makes up. A Map iterates in insertion order, so
 * moving an entry to the end on each use keeps the least recently used first.
 *
 * With `weights`, the total weight is bounded too: entries differ in cost (a prepared statement
 * for a 100-tag search holds ~55 KB, a one-tag one ~4 KB), so a count alone bounds memory only
 * at the worst entry's size. The newest entry is always kept, even when it alone is heavier than
 * the bound, so a value just built is never thrown away before its first use.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  #weight = 0;

  constructor(
    readonly maxSize: number,
    readonly weights?: LruWeights<V>,
  ) {
    if (!Number.isInteger(maxSize) || maxSize < 1) throw new RangeError(`An LRU cache holds at least one entry, not ${maxSize}`);
    if (weights !== undefined && !(weights.maxWeight > 0)) throw new RangeError(`An LRU cache's weight bound is positive, not ${weights.maxWeight}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The total weight of the entries kept (0 without weights). */
  get weight(): number {
    return this.#weight;
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores the value as the most recently used, dropping the least recently used past the bounds. */
  set(key: K, value: V): void {
    this.#remove(key);
    const weight = this.weights === undefined ? 0 : Math.max(0, this.weights.weigh(value));
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    const maxWeight = this.weights?.maxWeight ?? Infinity;
    while (this.#entries.size > 1 && (this.#entries.size > this.maxSize || this.#weight > maxWeight)) {
      this.#remove(this.#entries.keys().next().value as K);
    }
  }

  /** The cached value, or `build()`'s, cached. */
  getOrCreate(key: K, build: () => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = build();
      this.set(key, value);
    }
    return value;
  }

  /** Keys from the least to the most recently used. */
  keys(): IterableIterator<K> {
    return this.#entries.keys();
  }

  #remove(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }
}
