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
import type { SearchHealth, StorySearchDto } from '../../schemas/search.js';
import { emptyPage, type AuthorSearchRequest, type SearchChanges, type SearchEngine, type SearchPage, type StorySearchRequest } from '../engine.js';
import type { WorkerPool } from '../../lib/worker-pool.js';
import { sqliteClient } from '../../db/statements.js';
import { embeddedReads, type EmbeddedReads } from './reads.js';
import { rebuildSearchIndex } from './rebuild.js';
import { searchPoolError } from './search-pool.js';

/** An FTS5 error that slipped past the query builder: answered as "no match", never a 500. */
function isFtsQueryError(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === 'SQLITE_ERROR' && /fts5|MATCH/i.test(error.message);
}

export class EmbeddedSearchEngine implements SearchEngine {
  readonly kind = 'embedded' as const;
  private stopping = false;
  private readonly reads: EmbeddedReads;

  constructor(
    private readonly db: Db,
    private readonly log?: FastifyBaseLogger,
    /** The search worker pool; the engine closes it. Without one, queries run in process. */
    readonly pool?: WorkerPool,
  ) {
    this.reads = embeddedReads(db);
  }

  async searchStories(request: StorySearchRequest): Promise<SearchPage<StorySearchDto>> {
    return this.guard(request.query, this.read('searchStories', request), emptyPage(request));
  }

  async suggest(text: string, limit: number): Promise<string[]> {
    return this.read('suggest', text, limit);
  }

  async searchAuthors(request: AuthorSearchRequest): Promise<SearchPage<AuthorDto>> {
    return this.guard(request.query, this.read('searchAuthors', request), emptyPage(request));
  }

  async reindex(): Promise<{ storiesCount: number }> {
    return { storiesCount: await rebuildSearchIndex(this.db, { stopped: () => this.stopping }) };
  }

  stopLongWork(): void {
    this.stopping = true;
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
