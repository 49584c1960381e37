/**
 * The URL import's extraction threads (docs/decisions.md, "URL import"), on the one worker pool
 * (src/lib/worker-pool.ts). Readability on a large page takes hundreds of milliseconds of CPU
 * (seconds under load); in a worker thread the event loop stays free for every other request.
 * Bounded three ways: {@link EXTRACT_WORKERS} threads, {@link EXTRACT_QUEUE} pages waiting (one
 * more is a 503), and {@link EXTRACT_TIMEOUT_MS} per page (the thread is stopped and the import
 * refused as too complex). Each thread's heap is capped too; running out ends the page's import,
 * not the server, and the next page gets a new thread.
 *
 * Threads start on first use and stay until the app closes, which stops them at once (an import
 * still extracting is answered 503). The worker module is ./extract-worker.ts.
 */
import { HttpError } from '../../errors.js';
import { WorkerGone, WorkerPool, WorkerPoolBusy, WorkerPoolClosed, WorkerTaskFailed, WorkerTaskTimeout } from '../../lib/worker-pool.js';
import type { OtwPage } from './otwarchive/parse.js';
import type { ExtractedStory } from '../html-story.js';
import type { PreparedWork } from './source-text.js';
import { importsBusy } from './errors.js';

/** Two cores on the smallest supported machines: one import at a time leaves one for the rest. */
export const EXTRACT_WORKERS = 1;
/** Pages that may wait for a thread; an import beyond this is answered 503 at once. */
export const EXTRACT_QUEUE = 4;
/** The measured worst page took 2.7 s under load; ten times that is not a story page. */
export const EXTRACT_TIMEOUT_MS = 30_000;
/** Readability over linkedom peaked at 423 MB on the largest test page: a cap well above it. */
const WORKER_HEAP_MB = 768;

/** A page as {@link ExtractPool.read} sees it: a page of a source we follow, or an ordinary page's story. */
export type ReadPage = { kind: 'otwarchive'; page: OtwPage; prepared: PreparedWork | undefined } | { kind: 'article'; story: ExtractedStory | undefined };

export interface ExtractPoolOptions {
  threads?: number;
  queueMax?: number;
  taskTimeoutMs?: number;
  onThreadError?: (error: unknown) => void;
}

function tooComplex(reason: string): HttpError {
  return new HttpError(422, 'The page could not be processed', { url: reason });
}

function shuttingDown(): HttpError {
  return new HttpError(503, 'The service is shutting down');
}

/** The pool's failures as the client sees them: 503 busy or closing, 422 for a page that broke its thread. */
function extractError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof WorkerPoolBusy) return importsBusy();
  if (error instanceof WorkerPoolClosed) return shuttingDown();
  if (error instanceof WorkerTaskTimeout) return tooComplex(`took longer than ${timeoutMs / 1000} s to process`);
  if (error instanceof WorkerTaskFailed) return tooComplex(`could not be parsed (${error.message})`);
  if (error instanceof WorkerGone) return tooComplex(`could not be processed (${error.cause instanceof Error ? error.cause.message : 'the worker stopped'})`);
  return error;
}

/** One app's extraction threads; {@link close} them with the app. */
export class ExtractPool {
  readonly #pool: WorkerPool;
  readonly #timeoutMs: number;

  constructor({ threads = EXTRACT_WORKERS, queueMax = EXTRACT_QUEUE, taskTimeoutMs = EXTRACT_TIMEOUT_MS, onThreadError }: ExtractPoolOptions = {}) {
    this.#timeoutMs = taskTimeoutMs;
    this.#pool = new WorkerPool({
      callerUrl: import.meta.url,
      modulePath: './extract-worker.js',
      size: threads,
      queueMax,
      taskTimeoutMs,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      onThreadError,
    });
  }

  /** The story in the page, `undefined` when there is none; 503 when the queue is full. */
  async extract(bytes: Uint8Array, charset: string | undefined, url: string, maxImages: number): Promise<ExtractedStory | undefined> {
    try {
      return await this.#pool.run<ExtractedStory | undefined>('extract', [bytes, charset, url, maxImages]);
    } catch (error) {
      throw extractError(error, this.#timeoutMs);
    }
  }

  /**
   * The page read by its markup (docs/decisions.md, "Sources"): an otwarchive page (a work with
   * at most `maxChapters` chapters, a series, the adult notice, the login page), else the story
   * in it as {@link extract} finds it. 503 when the queue is full.
   */
  async read(bytes: Uint8Array, charset: string | undefined, url: string, maxImages: number, maxChapters: number): Promise<ReadPage> {
    try {
      return await this.#pool.run<ReadPage>('read', [bytes, charset, url, maxImages, maxChapters]);
    } catch (error) {
      throw extractError(error, this.#timeoutMs);
    }
  }

  /** Stops the threads; waiting and running extractions fail with 503. */
  close(): Promise<void> {
    return this.#pool.close({ interrupt: true });
  }
}
