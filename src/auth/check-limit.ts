import { ServiceUnavailable } from '../errors.js';

/**
 * Runs at most `running` tasks at once; up to `waiting` more wait their turn in arrival order,
 * and a task past that is refused at once with 503 (nothing of it ran). For password checks:
 * each scrypt takes ~50 ms of a core and 32 MiB, so an unbounded burst of logins would take every
 * core, libuv's threads and hundreds of MiB.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) throw new ServiceUnavailable('Too many logins at once; try again shortly');
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.active += 1;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `active` never dips while one waits.
      const next = this.queue.shift();
      if (next === undefined) this.active -= 1;
      else next();
    }
  }
}

/**
 * Two password checks at once, process-wide, and 32 waiting (at most ~0.8 s of queue at 50 ms a
 * check): two keep the other requests of a 2-core box answered and leave two of libuv's four
 * threads to file I/O; 64 MiB of scrypt memory at most.
 */
export const passwordChecks = new ConcurrencyLimit(2, 32);
