/**
 * The one search interface the routes call (docs/decisions.md, "Search › Engines";
 * docs/architecture.md, "Ten habits", 9). The embedded SQLite FTS5 engine (./embedded/engine.ts) is always
 * there; a Typesense engine can stand in front of it later without the routes knowing.
 *
 * Indexing is not a method call per row: every write runs in `writeTransaction`, whose sync
 * step (./embedded/sync.ts) rebuilds the embedded documents and then tells {@link SearchEngine.documentsChanged}
 * what changed, inside the same transaction, so a second engine can queue the same changes
 * (an outbox row) atomically with the write.
 */
import type { DbOrTx } from '../db/open.js';
import type { SortDirection } from '../lib/pagination.js';
import type { AuthorDto } from '../schemas/author.js';
import type { ReadingStatus } from '../schemas/reading-status.js';
import type { TagKind } from '../schemas/tag.js';
import type { AuthorSearchSortKey, SearchEngineKind, SearchHealth, SearchFacets, StorySearchDto, StorySearchSortKey } from '../schemas/search.js';

/**
 * A story search as engines receive it: complete, its defaults filled once by
 * `storySearchRequest` (./service.ts). The filters stay optional: absent means "any".
 */
export interface StorySearchRequest {
  /** The user's text; `*` or blank matches everything. */
  query: string;
  page: number;
  size: number;
  /** Author names, any of them (case-insensitive). */
  authors?: readonly string[];
  /** Tag names, all of them (case-insensitive). */
  tags?: readonly string[];
  /** Per kind, tag names of that kind, all of them (docs/decisions.md, "Tag kinds"); kinds left out filter nothing. */
  tagsByKind?: TagKindNames;
  /** Inclusive; either one excludes unrated stories. */
  minRating?: number;
  maxRating?: number;
  /** One reading status (docs/decisions.md, "Reading status"). */
  readingStatus?: ReadingStatus;
  /** true: favourites only; false: the others. */
  favourite?: boolean;
  sortBy: StorySearchSortKey;
  sortDir: SortDirection;
  /** Count authors, tags and ratings over every matching story (docs/decisions.md, "Search facets"). */
  facets?: boolean;
}

/** Tag names asked for per kind; a kind is present only with at least one name. */
export type TagKindNames = Partial<Record<TagKind, readonly string[]>>;

/** An author search as engines receive it, complete (`authorSearchRequest`, ./service.ts). */
export interface AuthorSearchRequest {
  query: string;
  page: number;
  size: number;
  sortBy: AuthorSearchSortKey;
  sortDir: SortDirection;
}

/** The documents one sync rebuilt: seq (the FTS rowid) and public id; the row may be gone. */
export interface SearchChanges {
  stories: { seq: number; id: string }[];
  authors: { seq: number; id: string }[];
}

/** What a reindex did: the stories indexed and, for a second engine, a word on how it went. */
export interface ReindexOutcome {
  storiesCount: number;
  detail?: string;
}

/** SearchResultDto without the echo fields the route adds (docs/api.md, "Fields › Search results"). */
export interface SearchPage<T> {
  results: T[];
  totalHits: number;
  page: number;
  perPage: number;
}

/**
 * A page of story hits, with what only story searches add: the text the typo correction read
 * (docs/decisions.md, "Typo tolerance"), and the facets when asked for. Plain data: it may cross a
 * worker thread boundary.
 */
export interface StorySearchPage extends SearchPage<StorySearchDto> {
  /** Set only when the exact text found nothing and corrected words found these results. */
  correctedQuery?: string;
  facets?: SearchFacets;
}

/** The page that matches nothing, for this request. */
export function emptyPage<T>(request: { page: number; size: number }): SearchPage<T> {
  return { results: [], totalHits: 0, page: request.page, perPage: request.size };
}

export interface SearchEngine {
  /** Which engine answers: named by health and by the benchmark. */
  readonly kind: SearchEngineKind;
  searchStories(request: StorySearchRequest): Promise<StorySearchPage>;
  /** Distinct titles and names with a word starting with the text, best first, at most `limit`. */
  suggest(text: string, limit: number): Promise<string[]>;
  searchAuthors(request: AuthorSearchRequest): Promise<SearchPage<AuthorDto>>;
  /** Rebuilds the index from the tables; resolves to the number of stories indexed. */
  reindex(): Promise<ReindexOutcome>;
  health(): Promise<SearchHealth>;
  /**
   * Called inside the write transaction that changed these documents, after the embedded
   * index is up to date. Must be synchronous and must not fail for reasons outside the
   * database (queue, do not call out).
   */
  documentsChanged(tx: DbOrTx, changes: SearchChanges): void;
  /**
   * Delivers queued changes to a second engine if it can within `timeoutMs` (shutdown,
   * docs/decisions.md, "Running the service"); an engine with nothing queued leaves it out.
   */
  flush?(timeoutMs: number): Promise<void>;
  /**
   * The app has begun to close: stop long work (a reindex) at its next step. Requests still
   * finish; {@link close} comes after them.
   */
  stopLongWork(): void;
  /** Releases what the engine holds (workers, connections); the database stays open. */
  close(): Promise<void>;
}
