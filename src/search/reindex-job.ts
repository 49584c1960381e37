/**
 * A reindex started by the settings page and left to run after the request has been answered
 * (docs/decisions.md, "Settings page"): the page polls {@link ReindexJob.status}. The work is the
 * API's own (`reindex` in ./service.ts); `POST /api/search/reindex` still answers when it is done.
 */
import type { Db } from '../db/open.js';
import type { SearchEngine } from './engine.js';
import { rebuildProgress } from './embedded/rebuild.js';
import { reindex } from './service.js';

export type ReindexStatus =
  | { state: 'idle' }
  /** `done` of `total` rows indexed, when the embedded rebuild has counted them. */
  | { state: 'running'; startedAt: Date; done?: number; total?: number }
  | { state: 'finished'; startedAt: Date; finishedAt: Date; message: string }
  | { state: 'failed'; startedAt: Date; finishedAt: Date; message: string };

export class ReindexJob {
  private running: Promise<void> | undefined;
  private last: ReindexStatus = { state: 'idle' };

  constructor(
    private readonly engine: SearchEngine,
    private readonly db: Db,
    /** Told about a reindex that failed (the request that started it has long been answered). */
    private readonly onFailed: (error: unknown) => void = () => {},
  ) {}

  /**
   * Starts a reindex unless this job runs one already (false then: one at a time). A reindex
   * the API runs meanwhile is shared by the embedded rebuild, not run twice.
   */
  start(): boolean {
    if (this.running !== undefined) return false;
    const startedAt = new Date();
    this.last = { state: 'running', startedAt };
    this.running = reindex(this.engine)
      .then(
        (result) => {
          this.last = { state: 'finished', startedAt, finishedAt: new Date(), message: result.message };
        },
        (error: unknown) => {
          this.onFailed(error);
          this.last = { state: 'failed', startedAt, finishedAt: new Date(), message: error instanceof Error ? error.message : String(error) };
        },
      )
      .finally(() => {
        this.running = undefined;
      });
    return true;
  }

  /** What the last reindex started here is doing or did. */
  status(): ReindexStatus {
    if (this.last.state !== 'running') return this.last;
    const progress = rebuildProgress(this.db);
    return progress === undefined ? this.last : { ...this.last, done: progress.done, total: progress.total };
  }

  /** Resolves when no reindex started here runs (the app closes after it; the engine stops it early). */
  async settled(): Promise<void> {
    await this.running;
  }
}
