import { and, asc, count, eq, isNotNull, max, ne, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { namedListShape, namedListWhere, nameKeyContainsParams, type NamedListFilter } from '../db/name-filter.js';
import { defineStatements, defineStatementShapes } from '../db/statements.js';
import type { DbOrTx } from '../db/open.js';
import { authors, authorUrls, type AuthorRow } from '../db/schema.js';
import { newId, nextUpdatedAt, nowIso } from '../lib/clock.js';
import { cleanName, nameKey } from '../lib/names.js';
import type { SortDirection } from '../lib/pagination.js';
import type { AuthorSortKey } from '../schemas/author.js';

/**
 * The mean story rating from the trigger-maintained columns: `rating_sum / rated_story_count`
 * as a real, NULL when no story is rated (SQLite's division by zero yields NULL). Sorts use
 * this exact expression so that an index on it, when added, is picked up.
 */
const averageStoryRating = sql<number | null>`(${authors.ratingSum} * 1.0 / ${authors.ratedStoryCount})`;

const SORT_KEYS: Record<AuthorSortKey, AnyColumn | SQL> = {
  name: authors.nameKey,
  createdAt: authors.createdAt,
  updatedAt: authors.updatedAt,
  authorRating: authors.rating,
  averageStoryRating,
  storyCount: authors.storyCount,
};

/**
 * ORDER BY for an author list: the key, NULLS LAST in both directions, then `id` in the same
 * direction so pages never repeat or skip rows (docs/decisions.md, "Lists and pagination"). SQLite
 * walks the `(key, id)` indexes for these, NULLS LAST included, without a sort step. `name_key` is
 * unique and not null, so it needs no tie-breaker, and leaving `id` out keeps that scan index-only.
 */
function authorOrder(sortBy: AuthorSortKey, direction: SortDirection): SQL[] {
  const dir = direction === 'asc' ? sql`asc` : sql`desc`;
  if (sortBy === 'name') return [sql`${authors.nameKey} ${dir}`];
  return [sql`${SORT_KEYS[sortBy]} ${dir} nulls last`, sql`${authors.id} ${dir}`];
}

const byId = defineStatements((db: DbOrTx) => db.select().from(authors).where(eq(authors.id, sql.placeholder('id'))).prepare());

export function findAuthorById(db: DbOrTx, id: string): AuthorRow | undefined {
  return byId(db).get({ id });
}

const byNameKey = defineStatements((db: DbOrTx) => db.select().from(authors).where(eq(authors.nameKey, sql.placeholder('key'))).prepare());

/** Case-insensitive (after trimming) exact-name lookup, through the unique `name_key` (story writes look every author name up). */
export function findAuthorByName(db: DbOrTx, name: string): AuthorRow | undefined {
  return byNameKey(db).get({
    key: nameKey(name),
  });
}

export function insertAuthor(db: DbOrTx, values: { name: string; notes?: string | null }): AuthorRow {
  const now = nowIso();
  return db
    .insert(authors)
    .values({ id: newId(), name: cleanName(values.name), nameKey: nameKey(values.name), notes: values.notes ?? null, createdAt: now, updatedAt: now })
    .returning()
    .get();
}

/** The author with this name (case-insensitively), created when there is none (docs/decisions.md, "Shapes and values"). */
export function findOrCreateAuthor(db: DbOrTx, name: string): AuthorRow {
  return findAuthorByName(db, name) ?? insertAuthor(db, { name });
}

/** True when another author (not `exceptId`) already has this name, case-insensitively. */
export function authorNameTaken(db: DbOrTx, name: string, exceptId?: string): boolean {
  const key = eq(authors.nameKey, nameKey(name));
  const condition = exceptId === undefined ? key : and(key, ne(authors.id, exceptId));
  return db.select({ id: authors.id }).from(authors).where(condition).get() !== undefined;
}

/** The author's next `updatedAt` (src/lib/clock.ts), or undefined when there is no such author. */
function nextAuthorStamp(db: DbOrTx, id: string): string | undefined {
  const row = db.select({ updatedAt: authors.updatedAt }).from(authors).where(eq(authors.id, id)).get();
  return row === undefined ? undefined : nextUpdatedAt(row.updatedAt);
}

/** The columns an update may set; `updatedAt` is always bumped. */
export interface AuthorChanges {
  name?: string;
  notes?: string | null;
  rating?: number | null;
  avatarImagePath?: string | null;
}

export function updateAuthorRow(db: DbOrTx, id: string, changes: AuthorChanges): AuthorRow | undefined {
  const updatedAt = nextAuthorStamp(db, id);
  if (updatedAt === undefined) return undefined;
  const values: Partial<typeof authors.$inferInsert> = { updatedAt };
  if (changes.name !== undefined) {
    values.name = cleanName(changes.name);
    values.nameKey = nameKey(changes.name);
  }
  if (changes.notes !== undefined) values.notes = changes.notes;
  if (changes.rating !== undefined) values.rating = changes.rating;
  if (changes.avatarImagePath !== undefined) values.avatarImagePath = changes.avatarImagePath;
  return db.update(authors).set(values).where(eq(authors.id, id)).returning().get();
}

/**
 * Deletes the author; its URLs go by cascade and its stories are unlinked by the foreign key's
 * ON DELETE SET NULL (the count triggers follow). Returns the deleted row, so the caller can
 * remove the avatar file after the transaction, or undefined when there was none.
 */
export function deleteAuthorRow(db: DbOrTx, id: string): AuthorRow | undefined {
  return db.delete(authors).where(eq(authors.id, id)).returning().get();
}

const urlsOfAuthors = defineStatements((db: DbOrTx) =>
  db
    .select({ authorId: authorUrls.authorId, url: authorUrls.url })
    .from(authorUrls)
    .where(sql`${authorUrls.authorId} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`)
    .orderBy(asc(authorUrls.authorId), asc(authorUrls.position))
    .prepare(),
);

/** The URLs of each given author in insertion order, in one query (no N+1 on list pages). */
export function findAuthorUrls(db: DbOrTx, authorIds: readonly string[]): Map<string, string[]> {
  const byAuthor = new Map<string, string[]>(authorIds.map((id) => [id, []]));
  if (authorIds.length === 0) return byAuthor;
  for (const row of urlsOfAuthors(db).all({ ids: JSON.stringify(authorIds) })) byAuthor.get(row.authorId)?.push(row.url);
  return byAuthor;
}

/** Replaces every URL of the author with `urls`, keeping their order. */
export function replaceAuthorUrls(db: DbOrTx, authorId: string, urls: readonly string[]): void {
  db.delete(authorUrls).where(eq(authorUrls.authorId, authorId)).run();
  if (urls.length === 0) return;
  db.insert(authorUrls)
    .values(urls.map((url, position) => ({ authorId, position, url })))
    .run();
}

/** Appends a URL after the author's last one (positions may have gaps after removals). */
export function appendAuthorUrl(db: DbOrTx, authorId: string, url: string): void {
  const last = db.select({ last: max(authorUrls.position) }).from(authorUrls).where(eq(authorUrls.authorId, authorId)).get()?.last;
  db.insert(authorUrls)
    .values({ authorId, position: (last ?? -1) + 1, url })
    .run();
}

/** Removes the URL (every copy, should there be one); true when something was removed. */
export function removeAuthorUrl(db: DbOrTx, authorId: string, url: string): boolean {
  return db.delete(authorUrls).where(and(eq(authorUrls.authorId, authorId), eq(authorUrls.url, url))).run().changes > 0;
}

/** Bumps `updatedAt` after a change that touched only the author's URLs. */
export function touchAuthor(db: DbOrTx, id: string): AuthorRow | undefined {
  const updatedAt = nextAuthorStamp(db, id);
  if (updatedAt === undefined) return undefined;
  return db.update(authors).set({ updatedAt }).where(eq(authors.id, id)).returning().get();
}

export type AuthorListFilter = NamedListFilter;

/**
 * The statements of one shape of author page (sort, direction, with or without a name filter),
 * prepared once per connection: an authors page built its Drizzle queries on every request, and
 * preparing them was a fifth of the page's CPU in a profile at 100,000 stories
 * (docs/performance.md, "Where each miss goes").
 */
const authorPageShapes = defineStatementShapes();

function authorPageStatements(db: DbOrTx, sortBy: AuthorSortKey, direction: SortDirection, filter: AuthorListFilter) {
  return authorPageShapes(db, `${sortBy}:${direction}:${namedListShape(filter)}`, () => {
    const where = namedListWhere(authors, filter);
    return {
      seqs: db
        .select({ seq: authors.seq })
        .from(authors)
        .where(where)
        .orderBy(...authorOrder(sortBy, direction))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare(),
      total: db.select({ total: count() }).from(authors).where(where).prepare(),
    };
  });
}

/**
 * One page of authors and the total. A deferred join (docs/performance.md, "Measured facts the
 * code relies on"): the page's `seq`s
 * are read from the sort index first (every index carries the rowid, so that read is covered),
 * then only those rows are fetched.
 */
export function listAuthors(
  db: DbOrTx,
  filter: AuthorListFilter,
  sortBy: AuthorSortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
): { rows: AuthorRow[]; total: number } {
  const statements = authorPageStatements(db, sortBy, direction, filter);
  const pattern = nameKeyContainsParams(filter.nameContains);
  const seqs = statements.seqs.all({ ...pattern, limit: window.limit, offset: window.offset }).map((row) => row.seq);
  const total = statements.total.get(pattern)?.total ?? 0;
  return { rows: findAuthorsBySeqs(db, seqs), total };
}

const authorsBySeqs = defineStatements((db: DbOrTx) =>
  db
    .select()
    .from(authors)
    .where(sql`${authors.seq} IN (SELECT value FROM json_each(${sql.placeholder('seqs')}))`)
    .prepare(),
);

/** The rows for `seqs`, in the order of `seqs`. */
function findAuthorsBySeqs(db: DbOrTx, seqs: readonly number[]): AuthorRow[] {
  if (seqs.length === 0) return [];
  const rows = authorsBySeqs(db).all({ seqs: JSON.stringify(seqs) });
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  return seqs.flatMap((seq) => bySeq.get(seq) ?? []);
}

/**
 * Rated authors only: `authorRating` desc, then `averageStoryRating` desc (nulls last), then
 * name (docs/decisions.md, "Lists and pagination"); id last only to make the order total.
 */
export function topRatedAuthors(db: DbOrTx, limit: number): AuthorRow[] {
  return db
    .select()
    .from(authors)
    .where(isNotNull(authors.rating))
    .orderBy(sql`${authors.rating} desc`, sql`${averageStoryRating} desc nulls last`, asc(authors.nameKey), asc(authors.id))
    .limit(limit)
    .all();
}
