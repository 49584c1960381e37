/**
 * A small, bounded pool of extraction workers (docs/decisions.md, "URL import"). Readability on a
 * large page takes hundreds of milliseconds of CPU (seconds under load); in a worker thread the
 * event loop stays free for every other request. Bounded three ways: {@link EXTRACT_WORKERS}
 * workers, {@link EXTRACT_QUEUE} jobs waiting (one more is a 503), and
 * {@link EXTRACT_TIMEOUT_MS} per job (the worker is terminated and the import refused as too
 * complex). Each worker's heap is capped too; running out ends the job, not the server.
 *
 * Workers start on first use and stay until the app closes. In a build the worker is
 * `extract-worker.js` next to this module; under tsx (the tests, `npm run dev`) it is the `.ts`
 * file and the worker loads tsx itself.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../lib/module-worker.js';
import { HttpError } from '../../errors.js';
import type { ExtractedStory } from '../html-story.js';
import { importsBusy } from './errors.js';

/** Two cores on the smallest supported machines: one import at a time leaves one for the rest. */
export const EXTRACT_WORKERS = 1;
/** Jobs that may wait for a worker; an import beyond this is answered 503 at once. */
export const EXTRACT_QUEUE = 4;
/** The measured worst page took 2.7 s under load; ten times that is not a story page. */
export const EXTRACT_TIMEOUT_MS = 30_000;
/** Readability over linkedom peaked at 423 MB on the largest test page: a cap well above it. */
const WORKER_HEAP_MB = 768;

export interface ExtractJob {
  id: number;
  bytes: Uint8Array;
  charset: string | undefined;
  url: string;
  maxImages: number;
}

export type ExtractReply = { id: number; story: ExtractedStory | null } | { id: number; error: string };

interface Pending {
  job: ExtractJob;
  resolve: (story: ExtractedStory | undefined) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker;
  busy: Pending | undefined;
  timer: NodeJS.Timeout | undefined;
}

function tooComplex(reason: string): HttpError {
  return new HttpError(422, 'The page could not be processed', { url: reason });
}

export class ExtractPool {
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #closed = false;

  constructor(
    private readonly workers = EXTRACT_WORKERS,
    private readonly queueLimit = EXTRACT_QUEUE,
    private readonly timeoutMs = EXTRACT_TIMEOUT_MS,
  ) {}

  /** The story in the page, `undefined` when there is none; 503 when the queue is full. */
  extract(bytes: Uint8Array, charset: string | undefined, url: string, maxImages: number): Promise<ExtractedStory | undefined> {
    if (this.#closed) return Promise.reject(new HttpError(503, 'The service is shutting down'));
    const idle = this.#slots.find((slot) => slot.busy === undefined);
    if (idle === undefined && this.#slots.length >= this.workers && this.#queue.length >= this.queueLimit) {
      return Promise.reject(importsBusy());
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ job: { id: this.#nextId++, bytes, charset, url, maxImages }, resolve, reject });
      this.#dispatch();
    });
  }

  /** Terminates the workers; waiting and running jobs fail with 503. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const pending of this.#queue.splice(0)) pending.reject(new HttpError(503, 'The service is shutting down'));
    await Promise.all(this.#slots.splice(0).map((slot) => this.#stop(slot, new HttpError(503, 'The service is shutting down'))));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((candidate) => candidate.busy === undefined);
      if (slot === undefined && this.#slots.length < this.workers) slot = this.#start();
      if (slot === undefined) return;
      const pending = this.#queue.shift() as Pending;
      slot.busy = pending;
      slot.timer = setTimeout(() => void this.#stop(slot, tooComplex(`took longer than ${this.timeoutMs / 1000} s to process`)), this.timeoutMs);
      slot.worker.postMessage(pending.job);
    }
  }

  #start(): Slot {
    const worker = startModuleWorker(import.meta.url, './extract-worker.js', { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const slot: Slot = { worker, busy: undefined, timer: undefined };
    worker.on('message', (reply: ExtractReply) => {
      const pending = slot.busy;
      if (pending === undefined || pending.job.id !== reply.id) return;
      this.#finish(slot);
      if ('error' in reply) pending.reject(tooComplex(`could not be parsed (${reply.error})`));
      else pending.resolve(reply.story ?? undefined);
      this.#dispatch();
    });
    worker.on('error', (error) => this.#lost(slot, tooComplex(`could not be processed (${error.message})`)));
    worker.on('exit', () => this.#lost(slot, tooComplex('could not be processed (the worker stopped)')));
    worker.unref();
    this.#slots.push(slot);
    return slot;
  }

  #finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.busy = undefined;
  }

  /** A worker died (out of memory, a crash): its job fails, the slot goes, the queue moves on. */
  #lost(slot: Slot, error: unknown): void {
    const index = this.#slots.indexOf(slot);
    if (index >= 0) this.#slots.splice(index, 1);
    const pending = slot.busy;
    this.#finish(slot);
    pending?.reject(error);
    if (!this.#closed) this.#dispatch();
  }

  async #stop(slot: Slot, error: unknown): Promise<void> {
    this.#lost(slot, error);
    await slot.worker.terminate();
  }
}
