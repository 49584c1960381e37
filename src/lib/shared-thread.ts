/**
 * One worker thread for the whole process, lent to whoever needs it and stopped once nobody has
 * for a while: for pure computation that holds nothing of any app's (the file import's parser, the
 * story-text thread), so the apps of one process may share it (docs/architecture.md, "Ten
 * habits", 1). Started on the first lend; after the last user gives it back it waits `idleMs`
 * for another before it stops, so work in a row does not pay the thread's start each time while
 * an idle service keeps no thread and no heap.
 */
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

export class SharedThread {
  constructor(
    private readonly options: WorkerPoolOptions,
    readonly idleMs: number,
  ) {}

  #pool: WorkerPool | undefined;
  #users = 0;
  #idle: NodeJS.Timeout | undefined;
  #lends = 0;

  /** The thread's pool, started if needed; give it back with {@link giveBack}. */
  lend(): WorkerPool {
    clearTimeout(this.#idle);
    this.#users += 1;
    this.#lends += 1;
    this.#pool ??= new WorkerPool(this.options);
    return this.#pool;
  }

  /** A user is done; `interrupt`: it left a request running, which stops the thread now. */
  async giveBack(pool: WorkerPool, interrupt = false): Promise<void> {
    this.#users -= 1;
    if (pool !== this.#pool) return;
    if (interrupt) {
      this.#pool = undefined;
      await pool.close({ interrupt: true });
      return;
    }
    if (this.#users > 0) return;
    // Unreferenced: an idle thread never holds the process open (nor does the thread while idle).
    this.#idle = setTimeout(() => {
      if (this.#users > 0 || this.#pool !== pool) return;
      this.#pool = undefined;
      void pool.close();
    }, this.idleMs).unref();
  }

  /** How many times it was lent so far (for tests: in a process shared with other tests, only a count tells what one step did). */
  get lends(): number {
    return this.#lends;
  }

  /** Whether a thread is kept now, running or idle (for tests). */
  get started(): boolean {
    return this.#pool !== undefined;
  }
}
