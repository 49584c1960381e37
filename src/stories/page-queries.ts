/**
 * The ordered id lists behind every story list (docs/decisions.md, "Lists and pagination").
 *
 * Lists are a deferred join: these queries pick only the page's ids from an index with
 * ORDER BY/LIMIT/OFFSET, and `loadStoriesJsonArray` then renders those few rows
 * (docs/performance.md, "Measured facts the code relies on": 2-7 ms instead of 300-470 ms at 100k
 * stories). A page in the back half of a list is read from the list's far end in the opposite
 * order, so no page walks more than half the index: the last page costs what the first does.
 *
 * Nulls sort last in both directions. Rather than `ORDER BY x IS NULL, x` (which no index can
 * serve), a nullable key is paged in two index-friendly parts: the rows that have a value,
 * ordered by it, then the rows without one, ordered by id alone. Ties are always broken by id in
 * the list's direction, so pages never repeat or skip a row.
 *
 * Sorting the whole library by author or series name would otherwise join and sort every
 * story (the series index cannot even give story ids without reading each row). Instead the
 * authors/series are walked in name order with their trigger-maintained `story_count` to find
 * which of them the page falls in, and only those few groups' stories are read, by id.
 */
import { and, asc, count, desc, eq, getTableName, gte, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type Database from 'better-sqlite3';
import type { Db } from '../db/open.js';
import { authors, series, stories, storyTags, tags } from '../db/schema.js';
import type { SortDirection } from '../lib/pagination.js';
import type { StorySortKey } from '../schemas/story.js';
import type { ReadingStatus } from '../schemas/reading-status.js';
import { defineStatements, defineStatementShapes } from '../db/statements.js';

/** Which stories a list covers: all of them, one author's, or one tag's. */
export type StoryScope = { kind: 'all' } | { kind: 'author'; authorId: string } | { kind: 'tag'; tagId: string };

interface SortSpec {
  /** What the rows are ordered by (then by id). */
  key: SQL | SQLiteColumn;
  /** For a nullable key: the column that is null when the key is (rows without it come last). */
  nullWhen?: SQLiteColumn;
  /** A table the key lives in, joined (inner) for the rows that have a value. */
  join?: 'authors' | 'series';
}

/**
 * Each key matches an index: `(created_at, id)`, `(updated_at, id)`, `(title COLLATE NOCASE, id)`,
 * `(word_count, id)`, `(volume, id)`, `(rating, created_at, id)`. Author and series names sort
 * by their case-insensitive key (`name_key`), as titles sort case-insensitively.
 */
const SORTS: Record<StorySortKey, SortSpec> = {
  createdAt: { key: stories.createdAt },
  updatedAt: { key: stories.updatedAt },
  title: { key: sql`${stories.title} COLLATE NOCASE` },
  wordCount: { key: stories.wordCount },
  rating: { key: stories.rating, nullWhen: stories.rating },
  volume: { key: stories.volume, nullWhen: stories.volume },
  authorName: { key: authors.nameKey, nullWhen: stories.authorId, join: 'authors' },
  seriesName: { key: series.nameKey, nullWhen: stories.seriesId, join: 'series' },
};

type Part = 'valued' | 'unvalued';

/**
 * How a scope's statements are shaped: a tag with more than {@link WIDE_TAG_STORIES} stories is a
 * `wideTag`, whose pages walk the order's own index and test membership, instead of fetching
 * every one of the tag's stories to sort them.
 */
type ScopeShape = StoryScope['kind'] | 'wideTag';

/**
 * Measured at 100,000 stories (docs/performance.md, "Tag pages"): fetching each of a tag's
 * stories by id reads its row, and `created_at` sits behind the story's text in the row, so
 * every fetch follows the text's overflow pages: 2.6-2.9 s for a tag on 49,555 stories, 0.4-0.7 s
 * on 10,900. Walking the order's covering index instead: 21-170 ms and 6-138 ms. Under ~500
 * stories fetching wins (13-35 ms against 1-53 ms), so small tags keep that plan.
 */
const WIDE_TAG_STORIES = 1000;

const tagStoryCount = defineStatements((db: Db) =>
  db.select({ storyCount: tags.storyCount }).from(tags).where(eq(tags.id, sql.placeholder('id'))).prepare(),
);

function shapeOf(db: Db, scope: StoryScope): ScopeShape {
  if (scope.kind !== 'tag') return scope.kind;
  const stored = tagStoryCount(db).get({ id: scope.tagId })?.storyCount ?? 0;
  return stored > WIDE_TAG_STORIES ? 'wideTag' : 'tag';
}

/** The scope's condition on stories, or the join that restricts them to one tag. */
function scopeCondition(kind: ScopeShape): SQL | undefined {
  if (kind === 'author') return eq(stories.authorId, sql.placeholder('scopeId'));
  const tagStories = sql`(SELECT ${storyTags.storyId} FROM ${storyTags} WHERE ${storyTags.tagId} = ${sql.placeholder('scopeId')})`;
  // The unary + keeps SQLite from driving the query by the id index (see WIDE_TAG_STORIES).
  if (kind === 'wideTag') return sql`+${stories.id} IN ${tagStories}`;
  if (kind === 'tag') return sql`${stories.id} IN ${tagStories}`;
  return undefined;
}

function scopeId(scope: StoryScope): string {
  if (scope.kind === 'author') return scope.authorId;
  if (scope.kind === 'tag') return scope.tagId;
  return '';
}

const idPageShapes = defineStatementShapes();

function idPageStatement(db: Db, kind: ScopeShape, sortBy: StorySortKey, direction: SortDirection, part: Part) {
  return idPageShapes(db, `${kind}:${sortBy}:${direction}:${part}`, () => {
    const spec = SORTS[sortBy];
    const by = direction === 'asc' ? asc : desc;
    if ((kind === 'tag' || kind === 'wideTag') && sortBy === 'createdAt') {
      // A tag's part of `story_tags_tag_created_idx`, in the stories' own (created_at, id)
      // order: 0.03-0.8 ms for any page of a 49,555-story tag at 100,000 stories, where walking
      // the library's order and testing membership took 13-33 ms (docs/performance.md, "Tag pages").
      return db
        .select({ id: storyTags.storyId })
        .from(storyTags)
        .where(eq(storyTags.tagId, sql.placeholder('scopeId')))
        .orderBy(by(storyTags.storyCreatedAt), by(storyTags.storyId))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare();
    }
    let query = db.select({ id: stories.id }).from(stories).$dynamic();
    const conditions = [scopeCondition(kind)];
    let order: SQL[];
    if (part === 'valued') {
      if (spec.join === 'authors') query = query.innerJoin(authors, eq(authors.id, stories.authorId));
      else if (spec.join === 'series') query = query.innerJoin(series, eq(series.id, stories.seriesId));
      else if (spec.nullWhen !== undefined) conditions.push(isNotNull(spec.nullWhen));
      order = [by(spec.key), by(stories.id)];
    } else {
      conditions.push(isNull(spec.nullWhen as SQLiteColumn));
      order = [by(stories.id)];
    }
    return query
      .where(and(...conditions))
      .orderBy(...order)
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare();
  });
}

const countShapes = defineStatementShapes();

/** COUNT(*) of the scope or, given a nullable sort key, of its rows that have a value for it. */
function countStatement(db: Db, kind: ScopeShape, valuedFor?: StorySortKey) {
  return countShapes(db, `${kind}:${valuedFor ?? ''}`, () => {
    const nullWhen = valuedFor === undefined ? undefined : SORTS[valuedFor].nullWhen;
    return db
      .select({ total: count() })
      .from(stories)
      .where(and(scopeCondition(kind), nullWhen === undefined ? undefined : isNotNull(nullWhen)))
      .prepare();
  });
}

const GROUPS = {
  authorName: { table: authors, storyColumn: stories.authorId },
  seriesName: { table: series, storyColumn: stories.seriesId },
} as const;
type GroupKey = keyof typeof GROUPS;

const groupWalkShapes = defineStatementShapes<Database.Statement>();
const groupStoryIdShapes = defineStatementShapes();

/**
 * The authors (or series) that have stories, in name order, with their trigger-kept
 * `story_count`: walked row by row from whichever end of the order is nearer the page, so a page
 * near either end reads a few rows. A running `sum() over (order by name_key)` did the same in one
 * statement but summed every author each time: 13-29 ms a page at 100,000 stories and 12,156
 * authors, a third of the first list pages' CPU in the bench (docs/performance.md, "Where each
 * miss goes").
 */
function groupWalk(db: Db, key: GroupKey, direction: SortDirection): Database.Statement<[], { id: string; storyCount: number }> {
  return groupWalkShapes(db, `${key}:${direction}`, () =>
    db.$client.prepare(`SELECT id, story_count AS storyCount FROM ${getTableName(GROUPS[key].table)} WHERE story_count > 0 ORDER BY name_key ${direction}`),
  ) as Database.Statement<[], { id: string; storyCount: number }>;
}

const groupedStories = defineStatements((db: Db) => ({
  authorName: db.$client.prepare('SELECT total(story_count) FROM authors').pluck(),
  seriesName: db.$client.prepare('SELECT total(story_count) FROM series').pluck(),
}));

interface GroupInWindow {
  id: string;
  storyCount: number;
  /** How many stories the groups before it (in the page's order) hold. */
  before: number;
}

/** The groups holding the stories at positions [offset, offset + limit) of the grouped order, in that order. */
function groupsInWindow(db: Db, key: GroupKey, direction: SortDirection, window: { limit: number; offset: number }): GroupInWindow[] {
  const end = window.offset + window.limit;
  const found: GroupInWindow[] = [];
  const grouped = window.offset === 0 ? Infinity : Number(groupedStories(db)[key].get());
  if (window.offset >= grouped) return found;
  if (window.offset <= grouped / 2) {
    let upto = 0;
    for (const group of groupWalk(db, key, direction).iterate()) {
      const before = upto;
      upto += group.storyCount;
      if (upto > window.offset) found.push({ ...group, before });
      if (upto >= end) break;
    }
    return found;
  }
  // From the far end: the opposite order, each group's place counted back from the end.
  let fromEnd = 0;
  for (const group of groupWalk(db, key, direction === 'asc' ? 'desc' : 'asc').iterate()) {
    fromEnd += group.storyCount;
    const before = grouped - fromEnd;
    if (before < end) found.push({ ...group, before });
    if (before <= window.offset) break;
  }
  return found.reverse();
}

function groupStoryIdsStatement(db: Db, key: GroupKey, direction: SortDirection) {
  return groupStoryIdShapes(db, `${key}:${direction}`, () =>
    db
      .select({ id: stories.id })
      .from(stories)
      .where(eq(GROUPS[key].storyColumn, sql.placeholder('groupId')))
      .orderBy(direction === 'asc' ? asc(stories.id) : desc(stories.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(),
  );
}

/** The stories that have an author (or series) in name order, then id: group by group. */
function groupedStoryIds(db: Db, key: GroupKey, direction: SortDirection, window: { limit: number; offset: number }): string[] {
  const ids: string[] = [];
  for (const group of groupsInWindow(db, key, direction, window)) {
    const rows = groupStoryIdsStatement(db, key, direction).all({
      groupId: group.id,
      limit: window.limit - ids.length,
      offset: Math.max(0, window.offset - group.before),
    });
    for (const row of rows) ids.push(row.id);
    if (ids.length >= window.limit) break;
  }
  return ids;
}

function valuedStoryIds(
  db: Db,
  scope: StoryScope,
  sortBy: StorySortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
): string[] {
  if (scope.kind === 'all' && (sortBy === 'authorName' || sortBy === 'seriesName')) {
    return groupedStoryIds(db, sortBy, direction, window);
  }
  return idPageStatement(db, shapeOf(db, scope), sortBy, direction, 'valued')
    .all({ scopeId: scopeId(scope), limit: window.limit, offset: window.offset })
    .map((row) => row.id);
}

/** The ids of one window of the scope's stories in the requested order (see the file comment). */
export function sortedStoryIds(
  db: Db,
  scope: StoryScope,
  sortBy: StorySortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
  total?: number,
): string[] {
  const grouped = scope.kind === 'all' && (sortBy === 'authorName' || sortBy === 'seriesName');
  if (total === undefined || grouped || window.offset + window.limit <= total / 2) return forwardStoryIds(db, scope, sortBy, direction, window);
  return nearerEndStoryIds(db, scope, sortBy, direction, window, total);
}

/** Walks the order from its start to the window. */
function forwardStoryIds(db: Db, scope: StoryScope, sortBy: StorySortKey, direction: SortDirection, window: { limit: number; offset: number }): string[] {
  const id = scopeId(scope);
  const ids = valuedStoryIds(db, scope, sortBy, direction, window);
  const nullWhen = SORTS[sortBy].nullWhen;
  if (nullWhen === undefined || ids.length === window.limit) return ids;

  // The valued rows ran out inside this window: continue with the rows that have no value.
  const shape = shapeOf(db, scope);
  const valued = countStatement(db, shape, sortBy).get({ scopeId: id })?.total ?? 0;
  const rest = idPageStatement(db, shape, sortBy, direction, 'unvalued').all({
    scopeId: id,
    limit: window.limit - ids.length,
    offset: Math.max(0, window.offset - valued),
  });
  return [...ids, ...rest.map((row) => row.id)];
}

/**
 * A window in the back half of the order: each part (the rows with a value, then those without)
 * is read from whichever of its ends is nearer, the far end in the opposite order reversed, so
 * the last page costs what the first does instead of an OFFSET walk over the whole index.
 */
function nearerEndStoryIds(
  db: Db,
  scope: StoryScope,
  sortBy: StorySortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
  total: number,
): string[] {
  const id = scopeId(scope);
  const nullable = SORTS[sortBy].nullWhen !== undefined;
  const shape = shapeOf(db, scope);
  const valued = nullable ? (countStatement(db, shape, sortBy).get({ scopeId: id })?.total ?? 0) : total;
  const opposite: SortDirection = direction === 'asc' ? 'desc' : 'asc';
  const part = (which: Part, size: number, offset: number, limit: number): string[] => {
    const take = Math.min(limit, size - offset);
    if (take <= 0) return [];
    const statement = (dir: SortDirection) => idPageStatement(db, shape, sortBy, dir, which);
    if (offset <= size / 2) return statement(direction).all({ scopeId: id, limit: take, offset }).map((row) => row.id);
    return statement(opposite)
      .all({ scopeId: id, limit: take, offset: size - offset - take })
      .map((row) => row.id)
      .reverse();
  };
  const ids = part('valued', valued, window.offset, window.limit);
  if (!nullable || ids.length === window.limit) return ids;
  return [...ids, ...part('unvalued', total - valued, Math.max(0, window.offset - valued), window.limit - ids.length)];
}

/** How many stories the scope has (an index count: cheap even at 100k). */
export function countStories(db: Db, scope: StoryScope): number {
  // A tag's count is kept by triggers in the same transaction as every link change.
  if (scope.kind === 'tag') return tagStoryCount(db).get({ id: scope.tagId })?.storyCount ?? 0;
  return countStatement(db, scope.kind).get({ scopeId: scopeId(scope) })?.total ?? 0;
}

const topRatedIds = defineStatements((db: Db) =>
  db
    .select({ id: stories.id })
    .from(stories)
    .where(isNotNull(stories.rating))
    .orderBy(desc(stories.rating), desc(stories.createdAt), desc(stories.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/** Rated stories only, rating desc then createdAt desc (then id), served by `(rating, created_at, id)`. */
export function topRatedStoryIds(db: Db, limit: number): string[] {
  return topRatedIds(db).all({ limit }).map((row) => row.id);
}

const seriesIds = defineStatements((db: Db) =>
  db
    .select({ id: stories.id })
    .from(stories)
    .where(eq(stories.seriesId, sql.placeholder('seriesId')))
    .orderBy(sql`${stories.volume} ASC NULLS LAST`, asc(stories.createdAt), asc(stories.id))
    .prepare(),
);

/** A series' stories: volume ascending with unnumbered ones last, then createdAt, then id. */
export function seriesStoryIds(db: Db, seriesId: string): string[] {
  return seriesIds(db).all({ seriesId }).map((row) => row.id);
}

/**
 * The library's combined filters (docs/decisions.md, "Browse pages"): every one given must hold.
 * A single author or tag alone is a {@link StoryScope} and pages down its index like the API;
 * these combinations start from the narrowest index (author, series or tag id, the rating
 * index for a minimum rating, the reading-status or favourite index) and sort what they find.
 */
export interface StoryFilter {
  authorId?: string;
  seriesId?: string;
  tagId?: string;
  /** More tags, every one required (the library's tag kind filters: docs/decisions.md, "Tag kinds"); at most one per kind and `tag`. */
  tagIds?: readonly string[];
  minRating?: number;
  /** The reader's filters (docs/decisions.md, "Reading status"), each read from its own index. */
  readingStatus?: ReadingStatus;
  favourite?: boolean;
}

function filterConditions(filter: StoryFilter): SQL | undefined {
  return and(
    filter.authorId === undefined ? undefined : eq(stories.authorId, filter.authorId),
    filter.seriesId === undefined ? undefined : eq(stories.seriesId, filter.seriesId),
    ...[filter.tagId, ...(filter.tagIds ?? [])].map((tagId) =>
      tagId === undefined ? undefined : sql`${stories.id} IN (SELECT ${storyTags.storyId} FROM ${storyTags} WHERE ${storyTags.tagId} = ${tagId})`,
    ),
    filter.minRating === undefined ? undefined : gte(stories.rating, filter.minRating),
    filter.readingStatus === undefined ? undefined : eq(stories.readingStatus, filter.readingStatus),
    filter.favourite === undefined ? undefined : eq(stories.favourite, filter.favourite),
  );
}

/** How many stories pass the filter. */
export function countFilteredStories(db: Db, filter: StoryFilter): number {
  return db.select({ total: count() }).from(stories).where(filterConditions(filter)).get()?.total ?? 0;
}

/** One window of the filtered stories in the requested order, nulls last, ties by id. */
export function filteredStoryIds(
  db: Db,
  filter: StoryFilter,
  sortBy: StorySortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
): string[] {
  const spec = SORTS[sortBy];
  const by = direction === 'asc' ? asc : desc;
  let query = db.select({ id: stories.id }).from(stories).$dynamic();
  if (spec.join === 'authors') query = query.leftJoin(authors, eq(authors.id, stories.authorId));
  else if (spec.join === 'series') query = query.leftJoin(series, eq(series.id, stories.seriesId));
  const order = spec.nullWhen === undefined ? [by(spec.key), by(stories.id)] : [asc(isNull(spec.nullWhen)), by(spec.key), by(stories.id)];
  return query
    .where(filterConditions(filter))
    .orderBy(...order)
    .limit(window.limit)
    .offset(window.offset)
    .all()
    .map((row) => row.id);
}
