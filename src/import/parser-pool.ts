/**
 * The file import's parser thread (docs/decisions.md, "File import"), on the one worker pool
 * (src/lib/worker-pool.ts): one thread for the process, shared by the jobs that parse (the job
 * runner runs one job at a time, so they take turns), started on the first request and stopped
 * {@link PARSER_IDLE_MS} after the last job that used it ended, so an idle service keeps no parser
 * heap but imports in a row, a series of FanFicFare downloads or a refresh after an import do
 * not each pay the thread's start: ~0.4 s of module loading out of a 100-chapter EPUB's ~2 s
 * (docs/performance.md, "Chapters"). The job asks one thing at a time; a request that takes
 * longer than {@link PARSE_TIMEOUT_MS}, or is cancelled with the job, stops the thread, and the
 * next request gets a new one.
 *
 * The worker module is ./parser-worker.ts.
 */
import { SharedThread } from '../lib/shared-thread.js';
import { WorkerGone, WorkerPoolBusy, WorkerTaskFailed, WorkerTaskTimeout } from '../lib/worker-pool.js';
import type { ParseResult } from './parse.js';

/** One request may take this long (a 100 MiB EPUB on a slow machine); then the thread is replaced. */
export const PARSE_TIMEOUT_MS = 120_000;

/**
 * The pool's failures as the job records them against the file: the parser's own message (a
 * thread that died reports its error, or that it stopped). A cancelled job's reason passes as is.
 */
function parserError(error: unknown): unknown {
  if (error instanceof WorkerTaskTimeout) return new Error(`parsing took longer than ${PARSE_TIMEOUT_MS / 1000} s`);
  if (error instanceof WorkerTaskFailed) return new Error(error.message);
  if (error instanceof WorkerGone) return error.cause instanceof Error ? new Error(error.cause.message) : new Error('the parser stopped');
  if (error instanceof WorkerPoolBusy) return new Error('the parser is busy');
  return error;
}

/** How long the thread waits for another job after the last one ended before it stops. */
export const PARSER_IDLE_MS = 30_000;
/** Requests that may wait for the thread: jobs take turns, so only an overlap of two ever waits. */
const PARSER_QUEUE_MAX = 4;

/** The one parser thread, lent to each {@link ParserPool} from its creation to its {@link ParserPool.close}. */
export class SharedParser extends SharedThread {
  constructor(idleMs = PARSER_IDLE_MS) {
    super({ callerUrl: import.meta.url, modulePath: './parser-worker.js', size: 1, queueMax: PARSER_QUEUE_MAX, taskTimeoutMs: PARSE_TIMEOUT_MS }, idleMs);
  }
}

const shared = new SharedParser();

/** How many times the parser thread was lent in this process (for tests). */
export function parserThreadLends(): number {
  return shared.lends;
}

/** Whether the process holds a parser thread now, running or idle (for tests). */
export function parserThreadKept(): boolean {
  return shared.started;
}

/** A job's use of the parser thread; {@link close} it when the job ends. */
export class ParserPool {
  readonly #pool = shared.lend();
  #running = 0;
  #closed = false;

  /** Parses one story file on disk (not an archive). */
  parseFile(path: string, file: string, signal: AbortSignal): Promise<ParseResult> {
    return this.#run('parseFile', [path, file], signal);
  }

  /** The story entries of an archive; rejects with the archive's one error. */
  listArchive(path: string, signal: AbortSignal): Promise<string[]> {
    return this.#run('listArchive', [path], signal);
  }

  /** Parses some entries of an archive, opening it once. */
  parseEntries(path: string, file: string, entries: string[], signal: AbortSignal): Promise<ParseResult[]> {
    return this.#run('parseArchiveEntries', [path, file, entries], signal);
  }

  /** Gives the thread back; a request of this job still running fails and stops the thread. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    return shared.giveBack(this.#pool, this.#running > 0);
  }

  async #run<T>(op: string, args: unknown[], signal: AbortSignal): Promise<T> {
    if (this.#closed) throw new Error('the parser was closed');
    this.#running += 1;
    try {
      return await this.#pool.run<T>(op, args, { signal });
    } catch (error) {
      throw parserError(error);
    } finally {
      this.#running -= 1;
    }
  }
}
