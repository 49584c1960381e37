import { and, asc, count, desc, eq, gt, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { prepared } from '../db/prepared.js';
import type { DbOrTx } from '../db/transaction.js';
import { tags, type TagRow } from '../db/schema.js';
import { newId, nextUpdatedAt, nowIso } from '../lib/clock.js';
import { likeContains, likePrefix } from '../lib/names.js';
import type { SortDirection } from '../lib/pagination.js';
import type { TagSortKey } from '../schemas/tag.js';


const SORT_COLUMNS = { name: tags.name, createdAt: tags.createdAt, storyCount: tags.storyCount } as const;

/** ORDER BY for a tag list; ties are broken by id so pages never repeat or skip rows. */
function tagOrder(sortBy: TagSortKey, direction: SortDirection): SQL[] {
  const by = direction === 'asc' ? asc : desc;
  return [by(SORT_COLUMNS[sortBy]), by(tags.id)];
}

export function findTagById(db: DbOrTx, id: string): TagRow | undefined {
  return db.select().from(tags).where(eq(tags.id, id)).get();
}

export function findTagByName(db: DbOrTx, name: string): TagRow | undefined {
  return db.select().from(tags).where(eq(tags.name, name)).get();
}

/** True when another tag (not `exceptId`) already has this (lowercased) name. */
export function tagNameTaken(db: DbOrTx, name: string, exceptId?: string): boolean {
  const condition = exceptId === undefined ? eq(tags.name, name) : and(eq(tags.name, name), ne(tags.id, exceptId));
  return db.select({ id: tags.id }).from(tags).where(condition).get() !== undefined;
}

export function insertTag(db: DbOrTx, name: string): TagRow {
  const now = nowIso();
  return db.insert(tags).values({ id: newId(), name, createdAt: now, updatedAt: now }).returning().get();
}

/** Renames the tag, bumping `updatedAt` by the rule of src/lib/clock.ts; undefined when absent. */
export function renameTag(db: DbOrTx, id: string, name: string): TagRow | undefined {
  const previous = db.select({ updatedAt: tags.updatedAt }).from(tags).where(eq(tags.id, id)).get();
  if (previous === undefined) return undefined;
  return db.update(tags).set({ name, updatedAt: nextUpdatedAt(previous.updatedAt) }).where(eq(tags.id, id)).returning().get();
}

export function deleteTag(db: DbOrTx, id: string): boolean {
  return db.delete(tags).where(eq(tags.id, id)).run().changes > 0;
}

export interface TagListFilter {
  /** Case-insensitive substring of the name (already lowercased: names are stored so). */
  nameContains?: string;
}

export function listTags(
  db: DbOrTx,
  filter: TagListFilter,
  sortBy: TagSortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
): { rows: TagRow[]; total: number } {
  const where = filter.nameContains === undefined ? undefined : sql`${tags.name} LIKE ${likeContains(filter.nameContains)} ESCAPE '\\'`;
  const rows = db
    .select()
    .from(tags)
    .where(where)
    .orderBy(...tagOrder(sortBy, direction))
    .limit(window.limit)
    .offset(window.offset)
    .all();
  const total = db.select({ total: count() }).from(tags).where(where).get()?.total ?? 0;
  return { rows, total };
}

/** Names starting with `prefix`, most used first, then by name (decisions.md). */
export function autocompleteTags(db: DbOrTx, prefix: string, limit: number): TagRow[] {
  return db
    .select()
    .from(tags)
    .where(sql`${tags.name} LIKE ${likePrefix(prefix)} ESCAPE '\\'`)
    .orderBy(desc(tags.storyCount), asc(tags.name))
    .limit(limit)
    .all();
}

/** Most used first, then by name; only tags some story uses. */
export function popularTags(db: DbOrTx, limit: number): TagRow[] {
  return db.select().from(tags).where(gt(tags.storyCount, 0)).orderBy(desc(tags.storyCount), asc(tags.name)).limit(limit).all();
}

export function unusedTags(db: DbOrTx): TagRow[] {
  return db.select().from(tags).where(eq(tags.storyCount, 0)).orderBy(asc(tags.name)).all();
}

export function tagStats(db: DbOrTx): { totalTags: number; usedTags: number; unusedTags: number } {
  const row = db
    .select({ totalTags: count(), usedTags: sql<number>`coalesce(sum(${tags.storyCount} > 0), 0)` })
    .from(tags)
    .get();
  const totalTags = row?.totalTags ?? 0;
  const usedTags = Number(row?.usedTags ?? 0);
  return { totalTags, usedTags, unusedTags: totalTags - usedTags };
}

/**
 * Finds each named tag (names already cleaned and lowercased) or creates it, returning rows in
 * the order given with duplicates removed. Used by story create/update (`tagNames`).
 */
export function findOrCreateTags(db: DbOrTx, names: readonly string[]): TagRow[] {
  const unique = [...new Set(names)];
  if (unique.length === 0) return [];
  const existing = prepared(db, 'tags:byNames', () =>
    db
      .select()
      .from(tags)
      .where(sql`${tags.name} IN (SELECT value FROM json_each(${sql.placeholder('names')}))`)
      .prepare(),
  ).all({ names: JSON.stringify(unique) });
  const byName = new Map(existing.map((row) => [row.name, row]));
  return unique.map((name) => byName.get(name) ?? insertTag(db, name));
}
