/**
 * At most `running` tasks at once; up to `waiting` more wait their turn in arrival order, and a
 * task past that is refused at once (nothing of it ran) with the error `refuse` makes. The one
 * concurrency bound of the process's CPU- and memory-heavy work: password checks (scrypt), sharp
 * jobs, EPUB builds, library exports. Each app makes its own, so two apps in one process share
 * no slot.
 */

/** The default refusal: every slot is taken and the queue is full. */
export class SemaphoreFull extends Error {
  override readonly name = 'SemaphoreFull';
}

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

export class Semaphore {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  /**
   * `running` ≥ 1 slots; `waiting` tasks may queue (Infinity: any number; 0: none);
   * `refuse` makes the error a task past the queue is refused with.
   */
  constructor(
    private readonly runningMax: number,
    private readonly waitingMax = Number.POSITIVE_INFINITY,
    private readonly refuse: () => Error = () => new SemaphoreFull(`All ${runningMax} slots are taken and ${waitingMax} tasks are waiting`),
  ) {
    if (!Number.isInteger(runningMax) || runningMax < 1) throw new RangeError(`A semaphore has at least one slot, not ${runningMax}`);
    if (waitingMax < 0 || (!Number.isInteger(waitingMax) && waitingMax !== Number.POSITIVE_INFINITY)) throw new RangeError(`A semaphore's queue bound is a whole number, not ${waitingMax}`);
  }

  /** Runs `task` in a slot, once one is free; its result or error is passed on and the slot freed either way. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await task();
    } finally {
      release();
    }
  }

  /**
   * A slot, now or when one frees up (in arrival order); rejects with the refusal when the queue
   * is full. The decision is taken when it is called, so tasks keep the order they asked in.
   */
  acquire(): Promise<Release> {
    const now = this.tryAcquire();
    if (now !== undefined) return Promise.resolve(now);
    if (this.#waiting.length >= this.waitingMax) return Promise.reject(this.refuse());
    return new Promise<Release>((resolve) => this.#waiting.push(() => resolve(this.#releaser())));
  }

  /** A slot if one is free now and nobody waits for one; otherwise undefined, and nothing queued. */
  tryAcquire(): Release | undefined {
    if (this.#active >= this.runningMax) return undefined;
    this.#active += 1;
    return this.#releaser();
  }

  /** Tasks holding a slot now (for tests and diagnostics). */
  get running(): number {
    return this.#active;
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so `running` never dips while one waits.
      const next = this.#waiting.shift();
      if (next === undefined) this.#active -= 1;
      else next();
    };
  }
}
