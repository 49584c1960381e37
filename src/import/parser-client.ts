/**
 * The parser worker seen from the main thread: one worker thread per running import, started on
 * first use, each request answered in turn (docs/decisions.md, "File import").
 *
 * The worker's module is the sibling `parser-worker`, started by src/lib/module-worker.ts (the
 * built `.js`, or the `.ts` under tsx).
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../lib/module-worker.js';
import type { ParseResult } from './parse.js';

/** One request may take this long (a 100 MiB EPUB on a slow machine); then the worker is replaced. */
export const PARSE_TIMEOUT_MS = 120_000;

export type ParserRequest =
  | { id: number; op: 'file'; path: string; file: string }
  | { id: number; op: 'list'; path: string }
  | { id: number; op: 'entries'; path: string; file: string; entries: string[] };

export type ParserResponse = { id: number; value: unknown } | { id: number; error: string };

type Request = ParserRequest extends infer R ? (R extends ParserRequest ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** A parser worker; {@link close} it when the job ends. */
export class ParserClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** Parses one story file on disk (not an archive). */
  parseFile(path: string, file: string, signal: AbortSignal): Promise<ParseResult> {
    return this.call({ op: 'file', path, file }, signal) as Promise<ParseResult>;
  }

  /** The story entries of an archive; rejects with the archive's one error. */
  listArchive(path: string, signal: AbortSignal): Promise<string[]> {
    return this.call({ op: 'list', path }, signal) as Promise<string[]>;
  }

  /** Parses some entries of an archive, opening it once. */
  parseEntries(path: string, file: string, entries: string[], signal: AbortSignal): Promise<ParseResult[]> {
    return this.call({ op: 'entries', path, file, entries }, signal) as Promise<ParseResult[]>;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private start(): Worker {
    const worker = startModuleWorker(import.meta.url, './parser-worker.js');
    worker.on('message', (response: ParserResponse) => {
      const pending = this.pending.get(response.id);
      this.pending.delete(response.id);
      if ('error' in response) pending?.reject(new Error(response.error));
      else pending?.resolve(response.value);
    });
    const failAll = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', () => failAll(new Error('the parser stopped')));
    return worker;
  }

  private call(request: Request, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const stop = (error: Error) => {
        settle();
        // The worker may be deep in one file: replace it rather than wait.
        void this.close();
        reject(error);
      };
      const timer = setTimeout(() => stop(new Error(`parsing took longer than ${PARSE_TIMEOUT_MS / 1000} s`)), PARSE_TIMEOUT_MS);
      const onAbort = () => stop(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      worker.postMessage({ ...request, id });
    });
  }
}
