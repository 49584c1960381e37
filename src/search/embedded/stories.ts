/**
 * Story search on the embedded engine (docs/decisions.md, "Search"), in two phases
 * (docs/performance.md, "Measured facts the code relies on"): phase 1 picks only the page's `seq`s
 * and the total from the FTS index and covering indexes (./story-plans.ts); phase 2 reads those few
 * rows, their tag names, and builds their snippets.
 */
import type Database from 'better-sqlite3';
import type { Db } from '../../db/open.js';
import { nameKey } from '../../lib/names.js';
import type { SortDirection } from '../../lib/pagination.js';
import type { StorySearchDto, StorySearchSortKey } from '../../schemas/search.js';
import type { TagKind } from '../../schemas/tag.js';
import { emptyPage, type StorySearchPage, type StorySearchRequest } from '../engine.js';
import { presentStoryHit, type StoryHitRow } from '../present.js';
import { parseQuery, type ParsedQuery } from '../text/query.js';
import { correctQuery } from './corrections.js';
import { emptyFacets, searchFacets } from './facets.js';
import { placedSnippet, SNIPPET_SOURCE_CHARS } from './snippet.js';
import { chapterAtOffset } from './hit-chapter.js';
import { isFiltered, planParams, planStorySearch, type SearchFilter } from './story-plans.js';
import { defineStatements, defineStatementShapes, sqliteClient } from '../../db/statements.js';

const ROW_COLUMNS = `s.seq, s.id, s.title, s.summary, s.author_id AS authorId, a.name AS authorName, s.series_id AS seriesId,
  se.name AS seriesName, s.volume, s.rating, s.word_count AS wordCount, s.cover_path AS coverPath, s.source_url AS sourceUrl,
  s.created_at AS createdAt, s.updated_at AS updatedAt, s.reading_status AS readingStatus, s.finished_at AS finishedAt,
  s.read_count AS readCount, s.favourite`;

const fixedStatements = defineStatements((client: Database.Database) => ({
  authors: client.prepare<[string], { id: string; storyCount: number }>(
    'SELECT id, story_count AS storyCount FROM authors WHERE name_key IN (SELECT value FROM json_each(?))',
  ),
  tags: client.prepare<[string], { id: string; storyCount: number; nameKey: string; kind: TagKind | null }>(
    'SELECT id, story_count AS storyCount, name_key AS nameKey, kind FROM tags WHERE name_key IN (SELECT value FROM json_each(?))',
  ),
  countStories: client.prepare('SELECT count(*) FROM stories').pluck(),
  countMatches: client.prepare<[string]>('SELECT count(*) FROM stories_fts WHERE stories_fts MATCH ?').pluck(),
  rows: client.prepare<[string], StoryHitRow>(
    `SELECT ${ROW_COLUMNS} FROM stories s LEFT JOIN authors a ON a.id = s.author_id LEFT JOIN series se ON se.id = s.series_id
     WHERE s.seq IN (SELECT value FROM json_each(?))`,
  ),
  rowsWithText: client.prepare<[string], StoryHitRow>(
    `SELECT ${ROW_COLUMNS}, s.description, substr(s.content_plain, 1, ${SNIPPET_SOURCE_CHARS}) AS contentPlain
     FROM stories s LEFT JOIN authors a ON a.id = s.author_id LEFT JOIN series se ON se.id = s.series_id
     WHERE s.seq IN (SELECT value FROM json_each(?))`,
  ),
  tagNames: client.prepare<[string], { seq: number; name: string }>(
    `SELECT s.seq, t.name FROM stories s JOIN story_tags st ON st.story_id = s.id JOIN tags t ON t.id = st.tag_id
     WHERE s.seq IN (SELECT value FROM json_each(?)) ORDER BY t.name`,
  ),
}));

/**
 * Most statements kept per connection whose text depends on the filters and sort. The text
 * varies with the number of tags (up to 100), the sort key, direction, rating and author
 * filters and the plan, so clients can make thousands of shapes. 256 holds every shape of a few
 * sorts over a dozen tag counts, the working set of real use; their memory is bounded too
 * (`PREPARED_BYTES_MAX`, src/db/statements.ts), since one 100-tag shape holds as much as a
 * dozen one-tag ones. An evicted shape is prepared again on its next use.
 */
export const SHAPED_STATEMENTS_MAX = 256;

/** Statements whose text depends on the filters and sort, prepared once per shape (LRU-bounded). */
const shapedStatements = defineStatementShapes<Database.Statement>(SHAPED_STATEMENTS_MAX);

function shaped(client: Database.Database, sqlText: string): Database.Statement {
  return shapedStatements(client, sqlText, () => client.prepare(sqlText));
}

/** How many shaped statements the connection keeps now (for tests and diagnostics). */
export function shapedStatementCount(client: Database.Database): number {
  return shapedStatements.count(client);
}

/**
 * The tags a search requires, by name key, each with the kind it must have (null: any), from
 * `tags` and the kind filters (docs/decisions.md, "Tag kinds"); null when one name is asked for
 * under two kinds, which no tag can be.
 */
function requiredTags(request: StorySearchRequest): Map<string, TagKind | null> | null {
  const required = new Map<string, TagKind | null>();
  for (const name of request.tags ?? []) required.set(nameKey(name), null);
  for (const [kind, names] of Object.entries(request.tagsByKind ?? {}) as [TagKind, readonly string[]][]) {
    for (const name of names) {
      const key = nameKey(name);
      const known = required.get(key);
      if (known !== undefined && known !== null && known !== kind) return null;
      required.set(key, kind);
    }
  }
  return required;
}

/**
 * Resolves the filter names to ids by their fold (docs/decisions.md, "Name keys (case folding)"). Null when the filter can match no
 * story: none of the listed authors exists, or one of the listed tags does not (or is not of the kind it was asked for under).
 * A kind filter is thus one more required tag: it costs no query of its own.
 */
function resolveFilter(client: Database.Database, request: StorySearchRequest): SearchFilter | null {
  const s = fixedStatements(client);
  const filter: SearchFilter = {
    authors: null,
    authorStories: 0,
    tags: null,
    tagIds: [],
    tagCount: 0,
    rarestTag: null,
    rarestTagStories: 0,
    minRating: null,
    maxRating: null,
    readingStatus: request.readingStatus ?? null,
    favourite: request.favourite === undefined ? null : Number(request.favourite),
  };
  if (request.authors !== undefined && request.authors.length > 0) {
    const found = s.authors.all(JSON.stringify([...new Set(request.authors.map(nameKey))]));
    if (found.length === 0) return null;
    filter.authors = JSON.stringify(found.map((author) => author.id));
    filter.authorStories = found.reduce((sum, author) => sum + author.storyCount, 0);
  }
  const required = requiredTags(request);
  if (required === null) return null;
  if (required.size > 0) {
    const found = s.tags.all(JSON.stringify([...required.keys()]));
    if (found.length < required.size) return null;
    for (const tag of found) {
      // A name asked for under a kind is no match for a tag of another kind, or of none.
      const kind = required.get(tag.nameKey);
      if (kind !== null && kind !== undefined && kind !== tag.kind) return null;
    }
    const rarest = found.reduce((best, tag) => (tag.storyCount < best.storyCount ? tag : best));
    filter.tagIds = found.map((tag) => tag.id);
    filter.tags = JSON.stringify(filter.tagIds);
    filter.tagCount = found.length;
    filter.rarestTag = rarest.id;
    filter.rarestTagStories = rarest.storyCount;
  }
  if (request.minRating !== undefined || request.maxRating !== undefined) {
    filter.minRating = request.minRating ?? 1;
    filter.maxRating = request.maxRating ?? 5;
  }
  return filter;
}

/** The trigger-maintained count, when the filter is one tag or only authors (and no text). */
function knownTotal(filter: SearchFilter): number | undefined {
  if (filter.minRating !== null || filter.readingStatus !== null || filter.favourite !== null) return undefined;
  if (filter.tags !== null && filter.authors === null && filter.tagCount === 1) return filter.rarestTagStories;
  if (filter.authors !== null && filter.tags === null) return filter.authorStories;
  return undefined;
}

/** Phase 1: the page's `seq`s in order, and the total. */
function pickPage(
  client: Database.Database,
  parsed: ParsedQuery,
  filter: SearchFilter,
  sortBy: StorySearchSortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
  probeLimit: number | undefined,
): { seqs: number[]; total: number } {
  const s = fixedStatements(client);
  const match = parsed.match;
  const candidates = Number(match === null ? s.countStories.get() : s.countMatches.get(match));
  if (candidates === 0) return { seqs: [], total: 0 };
  const filtered = isFiltered(filter);
  if (!filtered && window.offset >= candidates) return { seqs: [], total: candidates };

  const plan = planStorySearch({ match, candidates, filter, sortBy, direction, probeLimit });
  const params = planParams(match, filter, window);
  const rows = shaped(client, plan.page).all(params) as { seq: number; total?: number }[];
  const seqs = rows.map((row) => row.seq);
  let total: number;
  if (!filtered) total = candidates;
  else if (match === null && knownTotal(filter) !== undefined) total = knownTotal(filter) as number;
  else if (plan.windowed && rows.length > 0) total = Number(rows[0]?.total);
  else if (plan.windowed && window.offset === 0) total = 0;
  else total = Number(shaped(client, plan.count).pluck().get(params));
  return { seqs, total };
}

/** Phase 2: the page's rows as StorySearchDto, in phase-1 order, with snippets. */
function presentPage(client: Database.Database, seqs: readonly number[], parsed: ParsedQuery): StorySearchDto[] {
  if (seqs.length === 0) return [];
  const s = fixedStatements(client);
  const json = JSON.stringify(seqs);
  const withText = !parsed.matchAll;
  const rows = (withText ? s.rowsWithText : s.rows).all(json);
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  const tags = new Map<number, string[]>();
  for (const { seq, name } of s.tagNames.all(json)) {
    const list = tags.get(seq);
    if (list === undefined) tags.set(seq, [name]);
    else list.push(name);
  }
  const results: StorySearchDto[] = [];
  for (const seq of seqs) {
    const row = bySeq.get(seq);
    if (row === undefined) continue;
    if (!withText) {
      results.push(presentStoryHit(row, tags.get(seq) ?? [], null));
      continue;
    }
    const placed = placedSnippet({ title: row.title, summary: row.summary, description: row.description ?? null, contentPlain: row.contentPlain ?? null }, parsed);
    const chapter = placed.bodyOffset === null ? null : chapterAtOffset(client, row.id, placed.bodyOffset);
    results.push(presentStoryHit(row, tags.get(seq) ?? [], placed.snippet, chapter));
  }
  return results;
}

/** The page that matches nothing, with empty facets when they were asked for. */
export function emptyStoryPage(request: StorySearchRequest): StorySearchPage {
  return { ...emptyPage<StorySearchDto>(request), ...(request.facets === true ? { facets: emptyFacets() } : {}) };
}

/**
 * One page of story search results (see the file comment). A filter naming no existing
 * author, or a tag that does not exist, matches nothing; so does text with no searchable word.
 * When the exact text matches nothing, its misspelt words are widened to the library's words one
 * edit away (./corrections.ts) and the search runs once more; `correctedQuery` then says so.
 * Facets, when asked for, count over every story the answered search matches (./facets.ts).
 */
export function findStories(db: Db, request: StorySearchRequest, options: { probeLimit?: number } = {}): StorySearchPage {
  const client = sqliteClient(db);
  const { page, size } = request;
  const empty = () => emptyStoryPage(request);
  let parsed = parseQuery(request.query);
  if (!parsed.matchAll && parsed.match === null) return empty();
  const filter = resolveFilter(client, request);
  if (filter === null) return empty();

  const window = { limit: size, offset: page * size };
  let picked = pickPage(client, parsed, filter, request.sortBy, request.sortDir, window, options.probeLimit);
  let correctedQuery: string | undefined;
  if (picked.total === 0 && !parsed.matchAll) {
    const corrected = correctQuery(client, parsed);
    if (corrected !== undefined) {
      const retried = pickPage(client, corrected.parsed, filter, request.sortBy, request.sortDir, window, options.probeLimit);
      if (retried.total > 0) {
        picked = retried;
        parsed = corrected.parsed;
        correctedQuery = corrected.correctedQuery;
      }
    }
  }
  const result: StorySearchPage = { results: presentPage(client, picked.seqs, parsed), totalHits: picked.total, page, perPage: size };
  if (correctedQuery !== undefined) result.correctedQuery = correctedQuery;
  if (request.facets === true) result.facets = searchFacets(client, parsed.match, filter, picked.total);
  return result;
}
