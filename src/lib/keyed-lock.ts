/**
 * An in-process lock per key (a relative image path, an imported page's URL). Tasks for one key
 * run one after another in the order they asked; tasks for different keys do not wait for each
 * other.
 *
 * The image store uses it so that "is this file still referenced? then remove it" and "does this
 * file exist? then reference it" never interleave for the same file (docs/decisions.md, "Images":
 * the row and the file never disagree); the URL import so that its duplicate check and its write
 * never interleave for the same URL. The service is one process, so memory is enough.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` once every earlier task for `key` has settled; its result or error is passed on. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => done);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with a task running or waiting (for tests: the map must not grow without bound). */
  get size(): number {
    return this.#tails.size;
  }
}
