/**
 * Delivers the outbox (./outbox.ts) to Typesense, in the same process (docs/decisions.md, "Search";
 * docs/typesense.md).
 *
 * One pass walks the due rows in id order, a batch at a time. For each batch it reads the
 * current story and author rows by id (docs/architecture.md, "Ten habits", 9): an entity that
 * exists is upserted (one JSONL import per collection, whose per-line answers decide row by row),
 * one that is gone is deleted by id (a 404 means it was already gone: fine). Rows Typesense
 * confirmed are deleted at the version that was sent; rows it refused wait with an exponential
 * backoff. When Typesense does not answer at all, the pass stops without touching the rows and the
 * engine takes over (it probes until Typesense is back, then nudges the worker), so an outage of
 * any length only makes the queue longer. Delivering the same change twice is harmless: upserts
 * replace, deletes of missing documents are fine.
 *
 * Passes run one at a time: after a write (a nudge), when the next backed-off row falls due,
 * and when the engine says Typesense is back. `pause()` holds deliveries while a rebuild swaps
 * its aliases; `flush()` tries every row once, backoff or not, for the shutdown.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/open.js';
import { dueRows, nextAttemptAt, pendingCount, recordOutcome, type DeliveryOutcome, type OutboxRow } from './outbox.js';
import { describeError, httpStatusOf, isUnavailable, type TypesenseGateway } from './client.js';
import { readAuthorDocuments, readStoryDocuments } from './documents.js';
import { aliasName, type CollectionKind } from './schema.js';

export interface WorkerHooks {
  /** True while Typesense is reachable and its collections exist. */
  canDeliver(): boolean;
  /** Typesense did not answer; the engine probes until it does, then calls {@link OutboxWorker.nudge}. */
  onUnavailable(error: unknown): void;
  /** A collection behind an alias is gone; the engine rebuilds. */
  onCollectionMissing(error: unknown): void;
  /** Typesense answered a delivery. */
  onAnswered(): void;
  /** These rows are about to be sent (a rebuild notes them, to send them again after its swap). */
  sending(rows: readonly OutboxRow[]): void;
}

export interface WorkerOptions {
  /** Rows per batch (one import per collection, at most). */
  batchSize?: number;
  /** Longest sleep between passes when nothing nudges the worker. */
  maxIdleMs?: number;
  /** Deletes sent at once. */
  deleteConcurrency?: number;
}

/** A request Typesense refused as a whole (not an outage): its rows count as failed. */
class BatchRefused extends Error {}

export class OutboxWorker {
  private readonly batchSize: number;
  private readonly maxIdleMs: number;
  private readonly deleteConcurrency: number;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private pauses = 0;
  private flushing = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly gateway: TypesenseGateway,
    private readonly prefix: string,
    private readonly hooks: WorkerHooks,
    private readonly log: FastifyBaseLogger,
    options: WorkerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 100;
    this.maxIdleMs = options.maxIdleMs ?? 60_000;
    this.deleteConcurrency = options.deleteConcurrency ?? 8;
  }

  /** Something was queued, or Typesense is back: run a pass soon (coalesced). */
  nudge(): void {
    if (this.stopped || this.pauses > 0) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.wake(0);
  }

  /** Holds deliveries (a rebuild is swapping aliases); resolves once no pass runs. */
  async pause(): Promise<void> {
    this.pauses += 1;
    this.clearTimer();
    await this.running;
  }

  resume(): void {
    this.pauses = Math.max(0, this.pauses - 1);
    this.nudge();
  }

  /**
   * Tries to deliver every queued row once (backoff ignored) within `timeoutMs`; resolves to the
   * number of rows still queued. Used at shutdown (docs/decisions.md, "Running the service": flush
   * if it can within 5 s).
   */
  async flush(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    const timeLeft = () => Math.max(0, deadline - Date.now());
    if (!this.stopped && this.pauses === 0 && this.hooks.canDeliver()) {
      await within(this.running, timeLeft());
      if (this.running === undefined && !this.stopped && timeLeft() > 0) {
        this.flushing = true;
        await within(this.run(), timeLeft());
        this.flushing = false;
      }
    }
    return this.stopped ? 0 : pendingCount(this.db);
  }

  /** Stops for good; a delivery in flight is abandoned (its rows stay queued). */
  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  /** Resolves when the current pass (if any) is over: tests and the shutdown wait on it. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private wake(delayMs: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, delayMs);
    this.timer.unref();
  }

  private run(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        if (!(await this.pass())) break;
      } while (this.again);
    })()
      .catch((error: unknown) => {
        if (!this.stopped) this.log.error({ err: error }, 'search outbox: delivery pass failed');
      })
      .finally(() => {
        this.running = undefined;
        this.scheduleNext();
      });
    return this.running;
  }

  /** Sleeps until the next backed-off row falls due (a nudge comes sooner for new rows). */
  private scheduleNext(): void {
    if (this.stopped || this.pauses > 0 || this.flushing || !this.hooks.canDeliver()) return;
    const next = nextAttemptAt(this.db);
    if (next === undefined) return;
    this.wake(Math.min(this.maxIdleMs, Math.max(0, next - Date.now())));
  }

  /** One walk over the due rows; false when it had to stop (outage, pause, shutdown). */
  private async pass(): Promise<boolean> {
    let cursor = 0;
    for (;;) {
      if (this.stopped || this.pauses > 0 || !this.hooks.canDeliver()) return false;
      const rows = dueRows(this.db, cursor, this.flushing ? Number.POSITIVE_INFINITY : Date.now(), this.batchSize);
      if (rows.length === 0) return true;
      cursor = (rows.at(-1) as OutboxRow).id;
      if (!(await this.deliver(rows))) return false;
    }
  }

  /** Delivers one batch and records the outcome; false when Typesense did not answer. */
  private async deliver(rows: OutboxRow[]): Promise<boolean> {
    this.hooks.sending(rows);
    const outcome: DeliveryOutcome = { delivered: [], failed: [] };
    let interrupted: unknown;
    for (const kind of ['stories', 'authors'] as const) {
      const ofKind = rows.filter((row) => row.kind === (kind === 'stories' ? 'story' : 'author'));
      if (ofKind.length === 0) continue;
      try {
        await this.deliverKind(kind, ofKind, outcome);
      } catch (error) {
        if (error instanceof BatchRefused) {
          for (const row of ofKind) outcome.failed.push({ row, error: error.message });
          continue;
        }
        interrupted = error;
        break;
      }
    }
    if (this.stopped) return false;
    recordOutcome(this.db, outcome);
    if (interrupted === undefined) {
      this.hooks.onAnswered();
      return true;
    }
    if (httpStatusOf(interrupted) === 404) this.hooks.onCollectionMissing(interrupted);
    else this.hooks.onUnavailable(interrupted);
    return false;
  }

  private async deliverKind(kind: CollectionKind, rows: OutboxRow[], outcome: DeliveryOutcome): Promise<void> {
    const ids = rows.map((row) => row.entityId);
    const documents: Map<string, object> = kind === 'stories' ? readStoryDocuments(this.db, ids) : readAuthorDocuments(this.db, ids);
    const alias = aliasName(this.prefix, kind);
    const upserts = rows.filter((row) => documents.has(row.entityId));
    const deletes = rows.filter((row) => !documents.has(row.entityId));

    if (upserts.length > 0) {
      let lines;
      try {
        lines = await this.gateway.importDocuments(alias, upserts.map((row) => documents.get(row.entityId) as object));
      } catch (error) {
        throw refusedOr(error);
      }
      lines.forEach((line, index) => {
        const row = upserts[index] as OutboxRow;
        if (line.success) outcome.delivered.push(row);
        else outcome.failed.push({ row, error: line.error ?? 'import failed' });
      });
    }

    for (let start = 0; start < deletes.length; start += this.deleteConcurrency) {
      const chunk = deletes.slice(start, start + this.deleteConcurrency);
      const settled = await Promise.allSettled(chunk.map((row) => this.gateway.deleteDocument(alias, row.entityId)));
      let outage: unknown;
      settled.forEach((result, index) => {
        const row = chunk[index] as OutboxRow;
        if (result.status === 'fulfilled') outcome.delivered.push(row);
        else if (isUnavailable(result.reason)) outage = result.reason;
        else outcome.failed.push({ row, error: describeError(result.reason) });
      });
      if (outage !== undefined) throw outage;
    }
  }
}

/** An outage or a missing collection passes through; any other refusal fails the batch. */
function refusedOr(error: unknown): unknown {
  if (isUnavailable(error) || httpStatusOf(error) === 404) return error;
  return new BatchRefused(describeError(error));
}

/** Waits for the promise, but no longer than `ms`. */
async function within(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (promise === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
