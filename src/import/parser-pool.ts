/**
 * The file import's parser thread (docs/decisions.md, "File import"), on the one worker pool
 * (src/lib/worker-pool.ts): one thread per running import job, started on its first file and
 * stopped when the job ends, so the parser's modules and heap are not kept between imports. The
 * job asks one thing at a time; a request that takes longer than {@link PARSE_TIMEOUT_MS}, or is
 * cancelled with the job, stops the thread, and the next request gets a new one.
 *
 * The worker module is ./parser-worker.ts.
 */
import { WorkerGone, WorkerPool, WorkerPoolBusy, WorkerTaskFailed, WorkerTaskTimeout } from '../lib/worker-pool.js';
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

/** A job's parser thread; {@link close} it when the job ends. */
export class ParserPool {
  // One thread, and no queue: the job waits for each answer before it asks again.
  readonly #pool = new WorkerPool({ callerUrl: import.meta.url, modulePath: './parser-worker.js', size: 1, queueMax: 0, taskTimeoutMs: PARSE_TIMEOUT_MS });

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

  /** Stops the thread (a request still running fails). */
  close(): Promise<void> {
    return this.#pool.close({ interrupt: true });
  }

  async #run<T>(op: string, args: unknown[], signal: AbortSignal): Promise<T> {
    try {
      return await this.#pool.run<T>(op, args, { signal });
    } catch (error) {
      throw parserError(error);
    }
  }
}
