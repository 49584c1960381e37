/**
 * A Map with a size bound: past `maxSize` entries, the least recently used one is dropped. For
 * caches whose keys come from request input (a statement per search shape), which would
 * otherwise grow with every new shape a client makes up. A Map iterates in insertion order, so
 * moving an entry to the end on each use keeps the least recently used first.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly maxSize: number) {
    if (!Number.isInteger(maxSize) || maxSize < 1) throw new RangeError(`An LRU cache holds at least one entry, not ${maxSize}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Stores the value as the most recently used, dropping the least recently used past the bound. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.maxSize) this.#entries.delete(this.#entries.keys().next().value as K);
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
}
