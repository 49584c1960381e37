/**
 * The embedded engine: SQLite FTS5 in the library database itself, so search needs no server
 * (docs/decisions.md, "Search › Engines"). Its index is written by the sync step of every write
 * transaction (./sync.ts); this class only answers queries, rebuilds, and reports health.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/open.js';
import type { AuthorDto } from '../../schemas/author.js';
import type { SearchHealth, StorySearchDto } from '../../schemas/search.js';
import { emptyPage, type AuthorSearchRequest, type SearchChanges, type SearchEngine, type SearchPage, type StorySearchRequest } from '../engine.js';
import { findAuthors } from './authors.js';
import { findStories } from './stories.js';
import { sqliteClient } from '../../db/statements.js';
import { suggest } from './suggestions.js';
import { rebuildSearchIndex } from './rebuild.js';

/** An FTS5 error that slipped past the query builder: answered as "no match", never a 500. */
function isFtsQueryError(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === 'SQLITE_ERROR' && /fts5|MATCH/i.test(error.message);
}

export class EmbeddedSearchEngine implements SearchEngine {
  readonly kind = 'embedded' as const;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly log?: FastifyBaseLogger,
  ) {}

  async searchStories(request: StorySearchRequest): Promise<SearchPage<StorySearchDto>> {
    return this.guard(request.query, () => findStories(this.db, request), emptyPage(request));
  }

  async suggest(text: string, limit: number): Promise<string[]> {
    return suggest(sqliteClient(this.db), text, limit);
  }

  async searchAuthors(request: AuthorSearchRequest): Promise<SearchPage<AuthorDto>> {
    return this.guard(request.query, () => findAuthors(this.db, request), emptyPage(request));
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

  async close(): Promise<void> {}

  private guard<T>(query: string, run: () => T, empty: T): T {
    try {
      return run();
    } catch (error) {
      if (!isFtsQueryError(error)) throw error;
      this.log?.warn({ err: error, query: query.slice(0, 200) }, 'search query rejected by FTS5; answered as no match');
      return empty;
    }
  }
}
