/**
 * Author full-text search on the embedded engine (`GET /api/authors/search-typesense`,
 * docs/decisions.md, "Search"): words over name, notes and URLs, in the order asked for (name by
 * default), 0-based pages. Authors are few and their rows small, so one ordered query over
 * the matching `seq`s does; the page's rows and URLs are then read and presented like every
 * other author list.
 */
import { count, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/open.js';
import { authors } from '../../db/schema.js';
import { findAuthorUrls } from '../../authors/repository.js';
import { presentAuthor } from '../../authors/present.js';
import type { AuthorDto } from '../../schemas/author.js';
import type { AuthorSearchSortKey } from '../../schemas/search.js';
import { emptyPage, type AuthorSearchRequest, type SearchPage } from '../engine.js';
import { parseQuery } from '../text/query.js';

const SORT_KEYS: Record<AuthorSearchSortKey, SQL> = {
  name: sql`${authors.nameKey}`,
  storyCount: sql`${authors.storyCount}`,
  authorRating: sql`${authors.rating}`,
  averageStoryRating: sql`(${authors.ratingSum} * 1.0 / ${authors.ratedStoryCount})`,
  createdAt: sql`${authors.createdAt}`,
};

/** The key, nulls last in both directions, then id in the same direction (docs/decisions.md, "Lists and pagination › Sorting"). */
function order(sortBy: AuthorSearchSortKey, direction: 'asc' | 'desc'): SQL[] {
  const dir = sql.raw(direction);
  return [sql`${SORT_KEYS[sortBy]} ${dir} nulls last`, sql`${authors.id} ${dir}`];
}

/** One page of authors matching the text; `*` or blank lists every author. */
export function findAuthors(db: Db, request: AuthorSearchRequest): SearchPage<AuthorDto> {
  const { page, size } = request;
  const parsed = parseQuery(request.query);
  if (!parsed.matchAll && parsed.match === null) return emptyPage(request);

  const where = parsed.match === null ? undefined : sql`${authors.seq} IN (SELECT rowid FROM authors_fts WHERE authors_fts MATCH ${parsed.match})`;
  const totalHits = db.select({ total: count() }).from(authors).where(where).get()?.total ?? 0;
  const rows = db
    .select()
    .from(authors)
    .where(where)
    .orderBy(...order(request.sortBy, request.sortDir))
    .limit(size)
    .offset(page * size)
    .all();
  const urls = rows.length === 0 ? new Map<string, string[]>() : findAuthorUrls(db, rows.map((row) => row.id));
  return { results: rows.map((row) => presentAuthor(row, urls.get(row.id) ?? [])), totalHits, page, perPage: size };
}

