/**
 * The embedded engine: SQLite FTS5 in the library database itself, so search needs no server
 * (docs/decisions.md, "Search › Engines"). Its index is written by the sync step of every write
 * transaction (./sync.ts); this class only answers queries, rebuilds, and reports health.
 *
 * Queries run on the search worker pool when it is given one (./search-pool.ts, docs/decisions.md,
 * "Search worker pool"), on the main connection otherwise (`SEARCH_WORKERS=0`): the same
 * functions either way (./reads.ts). Reindex and health stay on the main connection.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/open.js';
import type { AuthorDto } from '../../schemas/author.js';
import type { SearchHealth } from '../../schemas/search.js';
import {
  emptyPage,
  type AuthorSearchRequest,
  type SearchChanges,
  type SearchEngine,
  type SearchPage,
  type StorySearchPage,
  type StorySearchRequest,
} from '../engine.js';
import type { WorkerPool } from '../../lib/worker-pool.js';
import { sqliteClient } from '../../db/statements.js';
import { embeddedReads, type EmbeddedReads } from './reads.js';
import { emptyStoryPage } from './stories.js';
import { rebuildProgress, rebuildSearchIndex } from './rebuild.js';
import { searchPoolError } from './search-pool.js';
import { newestStoryTermsMissing, refreshSearchTerms, termsRefreshDue } from './terms.js';

export interface EmbeddedEngineOptions {
  /** How often {@link EmbeddedSearchEngine.start}'s timer asks whether `search_terms` needs a refresh. */
  termsCheckMs?: number;
}

/** A minute: a refresh is due only after writes to 5 % of the library, so checking is rarely fruitful. */
const TERMS_CHECK_MS = 60_000;

/** An FTS5 error that slipped past the query builder: answered as "no match", never a 500. */
function isFtsQueryError(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === 'SQLITE_ERROR' && /fts5|MATCH/i.test(error.message);
}

export class EmbeddedSearchEngine implements SearchEngine {
  readonly kind = 'embedded' as const;
  private stopping = false;
  private readonly reads: EmbeddedReads;
  private termsTimer: NodeJS.Timeout | undefined;
  private termsRefresh: Promise<void> | undefined;
  private termsAgain = false;

  constructor(
    private readonly db: Db,
    private readonly log?: FastifyBaseLogger,
    /** The search worker pool; the engine closes it. Without one, queries run in process. */
    readonly pool?: WorkerPool,
    private readonly options: EmbeddedEngineOptions = {},
  ) {
    this.reads = embeddedReads(db);
  }

  /**
   * Background upkeep of the typo-correction vocabulary (./terms.ts): a refresh now when it is
   * due (an empty table in a library with stories) or the story written last has body words that
   * are not terms (written by another process, or before a restart), then a check every minute.
   */
  start(): void {
    if (this.stopping) return;
    this.refreshTermsIfDue(true);
    this.termsTimer = setInterval(() => this.refreshTermsIfDue(), this.options.termsCheckMs ?? TERMS_CHECK_MS);
    this.termsTimer.unref();
  }

  async searchStories(request: StorySearchRequest): Promise<StorySearchPage> {
    return this.guard(request.query, this.read('searchStories', request), emptyStoryPage(request));
  }

  /**
   * Refreshes `search_terms` from the story index in the background; a call while one runs makes
   * it run once more (the index may have changed under it). Never rejects: a failure is logged.
   */
  refreshTerms(): Promise<void> {
    if (this.termsRefresh !== undefined) {
      this.termsAgain = true;
      return this.termsRefresh;
    }
    const run = async () => {
      do {
        this.termsAgain = false;
        // A rebuild empties the index first: refreshing meanwhile would drop most terms. It asks again when done.
        if (rebuildProgress(this.db) !== undefined) return;
        await refreshSearchTerms(this.db, {
          stopped: () => this.stopping || rebuildProgress(this.db) !== undefined,
          readChunk: (after, size) => this.read('vocabChunk', after, size),
        });
      } while (this.termsAgain && !this.stopping);
    };
    this.termsRefresh = run()
      .catch((error: unknown) => this.log?.error({ err: error }, 'search terms refresh failed'))
      .finally(() => {
        this.termsRefresh = undefined;
      });
    return this.termsRefresh;
  }

  private refreshTermsIfDue(starting = false): void {
    if (this.stopping || this.termsRefresh !== undefined) return;
    try {
      if (termsRefreshDue(this.db) || (starting && newestStoryTermsMissing(this.db))) void this.refreshTerms();
    } catch (error) {
      this.log?.error({ err: error }, 'search terms check failed');
    }
  }

  async suggest(text: string, limit: number): Promise<string[]> {
    return this.read('suggest', text, limit);
  }

  async searchAuthors(request: AuthorSearchRequest): Promise<SearchPage<AuthorDto>> {
    return this.guard(request.query, this.read('searchAuthors', request), emptyPage(request));
  }

  /** Rebuilds the index, then refreshes the typo-correction vocabulary in the background. */
  async reindex(): Promise<{ storiesCount: number }> {
    const storiesCount = await rebuildSearchIndex(this.db, { stopped: () => this.stopping });
    void this.refreshTerms();
    return { storiesCount };
  }

  stopLongWork(): void {
    this.stopping = true;
    clearInterval(this.termsTimer);
  }

  /** Healthy when the index answers a query. */
  async health(): Promise<SearchHealth> {
    try {
      sqliteClient(this.db).prepare(`SELECT count(*) FROM stories_fts WHERE stories_fts MATCH '"health"'`).get();
      return { status: 'healthy', message: 'Embedded search engine (SQLite FTS5) is available', engine: this.kind };
    } catch (error) {
      return {
        status: 'unhealthy',
        message: 'Embedded search engine (SQLite FTS5) is not available',
        engine: this.kind,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }

  /** The embedded index is already up to date when this is called: nothing to do. */
  documentsChanged(_tx: DbOrTx, _changes: SearchChanges): void {}

  async close(): Promise<void> {
    this.stopping = true;
    clearInterval(this.termsTimer);
    await this.termsRefresh;
    await this.pool?.close();
  }

  /** Runs one read operation on a pool thread, or here; the pool's own failures become 503s. */
  private async read<K extends keyof EmbeddedReads>(op: K, ...args: Parameters<EmbeddedReads[K]>): Promise<ReturnType<EmbeddedReads[K]>> {
    if (this.pool === undefined) return (this.reads[op] as unknown as (...values: typeof args) => ReturnType<EmbeddedReads[K]>)(...args);
    try {
      return await this.pool.run<ReturnType<EmbeddedReads[K]>>(op, args);
    } catch (error) {
      throw searchPoolError(error);
    }
  }

  private async guard<T>(query: string, result: Promise<T>, empty: T): Promise<T> {
    try {
      return await result;
    } catch (error) {
      if (!isFtsQueryError(error)) throw error;
      this.log?.warn({ err: error, query: query.slice(0, 200) }, 'search query rejected by FTS5; answered as no match');
      return empty;
    }
  }
}
