/**
 * A small pool of worker threads that run named, synchronous-in-spirit tasks (a SQLite query,
 * a parse) off the event loop: one task per thread at a time, a bounded FIFO queue in front, a
 * time limit per task, and a replacement for any thread that dies. The search engine uses it
 * (docs/decisions.md, "Search worker pool"); anything else CPU-bound can too.
 *
 * The main side is {@link WorkerPool}; the worker module calls {@link serveWorkerTasks} with its
 * handlers. A task is `(op, args)`: the args and the result cross the thread boundary by
 * structured clone (plain objects, arrays, strings, numbers, Dates, Maps…; no functions, no class
 * instances). A handler that throws rejects the task with a {@link WorkerTaskFailed} carrying
 * the error's name, message and `code`.
 *
 * Threads start on the first task that needs one, or all at once on {@link WorkerPool.warm}, not
 * with the pool: a test app that never searches never starts them. A thread is referenced (keeps the process alive) only while it runs a task,
 * so an idle pool that was never closed does not hold a process open either; {@link
 * WorkerPool.close} ends the threads.
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { parentPort } from 'node:worker_threads';
import { startModuleWorker } from './module-worker.js';

/** The queue is full: the task was refused before anything of it ran. */
export class WorkerPoolBusy extends Error {
  override readonly name = 'WorkerPoolBusy';
}

/** The task ran past its time limit; its thread was stopped and is replaced. */
export class WorkerTaskTimeout extends Error {
  override readonly name = 'WorkerTaskTimeout';
}

/**
 * The thread died (or the pool closed) before the task finished. When the thread reported an
 * error before it ended (out of memory, an uncaught exception), that error is the `cause`.
 */
export class WorkerGone extends Error {
  override readonly name = 'WorkerGone';
}

/**
 * The pool was closed before the task ran, or while it ran under {@link WorkerPool.close}'s
 * `interrupt`: a {@link WorkerGone} (its name too) that an owner can tell from a dead thread.
 */
export class WorkerPoolClosed extends WorkerGone {}

/** The task's handler threw in the worker: its error, rebuilt on this side. */
export class WorkerTaskFailed extends Error {
  constructor(
    message: string,
    readonly errorName: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
  override readonly name = 'WorkerTaskFailed';
}

export interface WorkerPoolOptions {
  /** The worker module, named as {@link startModuleWorker} takes it: the caller's `import.meta.url`… */
  callerUrl: string;
  /** …and the module's path beside it, ending in `.js`. */
  modulePath: string;
  /** Threads at most (≥ 1). */
  size: number;
  /** Tasks that may wait for a thread; one more is refused with {@link WorkerPoolBusy}. */
  queueMax: number;
  /**
   * Time from a task's start on a thread (once the thread has started) to its answer before it
   * fails with {@link WorkerTaskTimeout}.
   */
  taskTimeoutMs: number;
  /** Given to every thread as `workerData` (an object). */
  workerData?: Record<string, unknown>;
  resourceLimits?: ResourceLimits;
  /** Told when a thread dies or cannot start (for the log); the pool carries on either way. */
  onThreadError?: (error: unknown) => void;
  /** How long {@link WorkerPool.close} lets a thread close itself before terminating it. */
  closeTimeoutMs?: number;
}

export interface RunOptions {
  /**
   * Aborting it fails the task with the signal's reason: a waiting task leaves the queue, a
   * running one's thread is stopped (its work may be deep in a loop) and replaced on demand.
   */
  signal?: AbortSignal;
}

interface Task {
  id: number;
  op: string;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Thread {
  worker: Worker;
  /** Has said it is ready (its module loaded, its set-up done). */
  ready: boolean;
  task?: Task;
  timer?: NodeJS.Timeout;
  /** Its error event, if it had one before exiting. */
  error?: unknown;
  exited: Promise<void>;
}

/** Messages from the worker module (see {@link serveWorkerTasks}). */
type FromWorker = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { name: string; message: string; code?: string } };

const CLOSE = '__close';
const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

export class WorkerPool {
  readonly #options: WorkerPoolOptions;
  readonly #threads: Thread[] = [];
  readonly #queue: Task[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new RangeError(`A worker pool has at least one thread, not ${options.size}`);
    if (!Number.isInteger(options.queueMax) || options.queueMax < 0) throw new RangeError(`A worker pool's queue bound is a whole number, not ${options.queueMax}`);
    this.#options = options;
  }

  /**
   * Runs `op(...args)` on a free thread, or queues it. Rejects with {@link WorkerPoolBusy} at
   * once when the queue is full, {@link WorkerTaskTimeout}, {@link WorkerGone} or {@link
   * WorkerTaskFailed}.
   */
  run<T>(op: string, args: unknown[], { signal }: RunOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new WorkerPoolClosed('The worker pool is closed'));
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    return new Promise<T>((resolve, reject) => {
      const task: Task = { id: this.#nextId++, op, args, signal, reject, resolve: resolve as (value: unknown) => void };
      const thread = this.#freeThread();
      if (thread === undefined && this.#queue.length >= this.#options.queueMax) {
        reject(new WorkerPoolBusy(`All ${this.#options.size} worker threads are busy and ${this.#queue.length} tasks are waiting`));
        return;
      }
      if (signal !== undefined) {
        task.onAbort = () => this.#aborted(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
        // Settled either way: the listener goes with the task.
        const done = () => signal.removeEventListener('abort', task.onAbort as () => void);
        task.resolve = (value) => {
          done();
          resolve(value as T);
        };
        task.reject = (error) => {
          done();
          reject(error);
        };
      }
      if (thread !== undefined) this.#dispatch(thread, task);
      else this.#queue.push(task);
    });
  }

  /**
   * Starts every thread the pool may have, in the background, so the first tasks do not wait
   * for a thread to load its modules (~0.2 s compiled, more under tsx).
   */
  warm(): void {
    while (!this.#closed && this.#threads.length < this.#options.size) this.#start();
  }

  /** Threads alive, tasks running, tasks waiting (for tests and diagnostics). */
  stats(): { threads: number; running: number; queued: number } {
    return { threads: this.#threads.length, running: this.#threads.filter((thread) => thread.task !== undefined).length, queued: this.#queue.length };
  }

  /** The live threads' workers (for tests: terminating one is what a crash looks like to the pool). */
  workers(): Worker[] {
    return this.#threads.map((thread) => thread.worker);
  }

  /**
   * Refuses new tasks, fails the waiting ones with {@link WorkerPoolClosed}, lets each thread
   * finish its running task and close itself (its handlers' close step: a database connection),
   * and terminates a thread that has not ended within the close timeout. With `interrupt`, the
   * running tasks fail with {@link WorkerPoolClosed} at once and their threads are terminated:
   * for work that may take long and leaves nothing to close (a page's extraction).
   */
  async close({ interrupt = false }: { interrupt?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const task of this.#queue.splice(0)) task.reject(new WorkerPoolClosed('The worker pool closed before the task ran'));
    if (interrupt) {
      await Promise.all(
        this.#threads.map(async (thread) => {
          const task = thread.task;
          this.#settle(thread);
          task?.reject(new WorkerPoolClosed('The worker pool closed while the task ran'));
          await thread.worker.terminate();
          await thread.exited;
        }),
      );
      return;
    }
    const timeout = this.#options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    await Promise.all(
      this.#threads.map(async (thread) => {
        thread.worker.postMessage(CLOSE);
        const timer = setTimeout(() => void thread.worker.terminate(), timeout);
        await thread.exited;
        clearTimeout(timer);
      }),
    );
  }

  /** An idle thread, or a new one while the pool is under its size. */
  #freeThread(): Thread | undefined {
    const idle = this.#threads.find((thread) => thread.task === undefined);
    if (idle !== undefined || this.#threads.length >= this.#options.size) return idle;
    return this.#start();
  }

  #start(): Thread {
    const worker = startModuleWorker(this.#options.callerUrl, this.#options.modulePath, {
      workerData: this.#options.workerData ?? {},
      resourceLimits: this.#options.resourceLimits,
    });
    worker.unref();
    let exited!: () => void;
    const thread: Thread = { worker, ready: false, exited: new Promise<void>((resolve) => (exited = resolve)) };
    worker.on('message', (message: FromWorker) => this.#answer(thread, message));
    worker.on('error', (error) => {
      thread.error = error;
    });
    worker.on('exit', (code) => {
      exited();
      this.#lost(thread, code);
    });
    this.#threads.push(thread);
    return thread;
  }

  #dispatch(thread: Thread, task: Task): void {
    thread.task = task;
    thread.worker.ref();
    // A new thread's start-up (loading modules, opening a connection) is not the task's time.
    if (thread.ready) this.#startTimer(thread);
    try {
      thread.worker.postMessage({ id: task.id, op: task.op, args: task.args });
    } catch (error) {
      // The args could not be cloned: the task never left this thread.
      this.#settle(thread);
      task.reject(error instanceof Error ? error : new Error(String(error)));
      this.#drain();
    }
  }

  #answer(thread: Thread, message: FromWorker): void {
    if ('ready' in message) {
      thread.ready = true;
      if (thread.task !== undefined) this.#startTimer(thread);
      return;
    }
    const task = thread.task;
    if (task === undefined || task.id !== message.id) return;
    this.#settle(thread);
    if (message.ok) task.resolve(message.value);
    else task.reject(new WorkerTaskFailed(message.error.message, message.error.name, message.error.code));
    this.#drain();
  }

  #startTimer(thread: Thread): void {
    thread.timer = setTimeout(() => this.#timedOut(thread), this.#options.taskTimeoutMs);
  }

  /** Frees the thread of its task: no timer, and no longer keeping the process alive. */
  #settle(thread: Thread): void {
    clearTimeout(thread.timer);
    thread.task = undefined;
    thread.worker.unref();
  }

  #timedOut(thread: Thread): void {
    const task = thread.task;
    if (task === undefined) return;
    this.#stop(thread);
    task.reject(new WorkerTaskTimeout(`The task "${task.op}" took longer than ${this.#options.taskTimeoutMs} ms`));
    this.#drain();
  }

  /** The task's signal aborted: out of the queue, or its thread stopped. */
  #aborted(task: Task): void {
    const reason = abortReason(task.signal as AbortSignal);
    const queued = this.#queue.indexOf(task);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      task.reject(reason);
      return;
    }
    const thread = this.#threads.find((candidate) => candidate.task === task);
    if (thread === undefined) return;
    this.#stop(thread);
    task.reject(reason);
    this.#drain();
  }

  /** Takes a thread out of the pool and terminates it, whatever it is running. */
  #stop(thread: Thread): void {
    this.#retire(thread);
    // A synchronous call (a query) cannot be interrupted: the thread ends when it returns, and
    // meanwhile does not keep the process alive.
    thread.worker.unref();
    void thread.worker.terminate();
  }

  /** A thread ended: on close, expected; otherwise its task fails and the queue moves to a new thread. */
  #lost(thread: Thread, exitCode: number): void {
    const wasLive = this.#retire(thread);
    if (!wasLive || this.#closed) {
      thread.task?.reject(new WorkerPoolClosed('The worker pool closed before the task finished'));
      return;
    }
    const error = thread.error ?? new Error(`A worker thread exited with code ${exitCode}`);
    this.#options.onThreadError?.(error);
    const task = thread.task;
    if (task !== undefined) task.reject(new WorkerGone(`The worker thread running "${task.op}" died: ${describe(error)}`, { cause: thread.error }));
    if (!thread.ready) {
      // It never started: whatever stopped it would stop its replacement too. Fail the waiting
      // tasks rather than start threads in a loop; the next task tries again.
      for (const waiting of this.#queue.splice(0)) waiting.reject(new WorkerGone(`A worker thread could not start: ${describe(error)}`));
      return;
    }
    this.#drain();
  }

  /** Removes the thread from the pool (idempotent); true if it was still in it. */
  #retire(thread: Thread): boolean {
    clearTimeout(thread.timer);
    const index = this.#threads.indexOf(thread);
    if (index < 0) return false;
    this.#threads.splice(index, 1);
    return true;
  }

  /** Hands waiting tasks to free (or new) threads. */
  #drain(): void {
    while (!this.#closed && this.#queue.length > 0) {
      const thread = this.#freeThread();
      if (thread === undefined) return;
      this.#dispatch(thread, this.#queue.shift() as Task);
    }
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A worker module's task handlers: each takes the task's args and returns (or resolves to) a clonable value. */
export type TaskHandlers = Record<string, (...args: never[]) => unknown>;

/**
 * The worker side: answers the pool's tasks with `handlers`, one at a time, and on close runs
 * `onClose` (close a connection) and lets the thread end. Call once, at the end of the worker
 * module's set-up; the pool counts a thread as started from then on.
 */
export function serveWorkerTasks(handlers: TaskHandlers, onClose: () => void = () => undefined): void {
  const port = parentPort;
  if (port === null) throw new Error('serveWorkerTasks runs in a worker thread only');
  port.on('message', async (message: typeof CLOSE | { id: number; op: string; args: unknown[] }) => {
    if (message === CLOSE) {
      onClose();
      port.close();
      return;
    }
    const { id, op, args } = message;
    try {
      const handler = Object.hasOwn(handlers, op) ? handlers[op] : undefined;
      if (handler === undefined) throw new Error(`No task named "${op}"`);
      const value = await (handler as (...values: unknown[]) => unknown)(...args);
      port.postMessage({ id, ok: true, value });
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      const code = (failure as { code?: unknown }).code;
      port.postMessage({ id, ok: false, error: { name: failure.name, message: failure.message, code: typeof code === 'string' ? code : undefined } });
    }
  });
  port.postMessage({ ready: true });
}
