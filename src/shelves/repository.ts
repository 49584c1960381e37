/**
 * Queries for shelves and the stories of manual shelves (docs/decisions.md, "Shelves"). A shelf
 * row carries its saved search as JSON text; ./present.ts reads it back. Positions of a manual
 * shelf's stories are integers that only order them: a PUT numbers them 0..n-1, an added story
 * goes after the last, a removed one leaves a gap.
 */
import { and, asc, count, desc, eq, inArray, max, ne, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/open.js';
import { shelfStories, shelves, type ShelfRow } from '../db/schema.js';
import { defineStatements } from '../db/statements.js';
import { newId, nextUpdatedAt, nowIso } from '../lib/clock.js';
import { cleanName, nameKey } from '../lib/names.js';
import type { SortDirection } from '../lib/pagination.js';
import type { ShelfKind, ShelfSortKey } from '../schemas/shelf.js';

/** A shelf row with the number of stories a manual shelf holds (0 for a smart one: it holds none). */
export type ShelfWithCount = ShelfRow & { storyCount: number };

const storyCountColumn = sql<number>`(SELECT count(*) FROM ${shelfStories} WHERE ${shelfStories.shelfId} = ${shelves.id})`.as('story_count');

const byId = defineStatements((db: DbOrTx) =>
  db
    .select({ shelf: shelves, storyCount: storyCountColumn })
    .from(shelves)
    .where(eq(shelves.id, sql.placeholder('id')))
    .prepare(),
);

export function findShelfById(db: DbOrTx, id: string): ShelfWithCount | undefined {
  const row = byId(db).get({ id });
  return row === undefined ? undefined : { ...row.shelf, storyCount: row.storyCount };
}

/** True when another shelf (not `exceptId`) already has this name, case-insensitively (docs/decisions.md, "Name keys (case folding)"). */
export function shelfNameTaken(db: DbOrTx, name: string, exceptId?: string): boolean {
  const key = eq(shelves.nameKey, nameKey(name));
  const condition = exceptId === undefined ? key : and(key, ne(shelves.id, exceptId));
  return db.select({ id: shelves.id }).from(shelves).where(condition).get() !== undefined;
}

export interface ShelfValues {
  name: string;
  description: string | null;
  kind: ShelfKind;
  /** The saved search as JSON; null for a manual shelf. */
  query: string | null;
}

export function insertShelf(tx: Tx, values: ShelfValues): string {
  const now = nowIso();
  const id = newId();
  tx.insert(shelves)
    .values({ id, name: cleanName(values.name), nameKey: nameKey(values.name), description: values.description, kind: values.kind, query: values.query, createdAt: now, updatedAt: now })
    .run();
  return id;
}

/** Sets the given columns and bumps `updatedAt` (the rule of src/lib/clock.ts); false when there is no such shelf. */
export function updateShelfRow(tx: Tx, id: string, changes: Partial<ShelfValues>): boolean {
  const previous = tx.select({ updatedAt: shelves.updatedAt }).from(shelves).where(eq(shelves.id, id)).get();
  if (previous === undefined) return false;
  const values: Partial<typeof shelves.$inferInsert> = { updatedAt: nextUpdatedAt(previous.updatedAt) };
  if (changes.name !== undefined) {
    values.name = cleanName(changes.name);
    values.nameKey = nameKey(changes.name);
  }
  if (changes.description !== undefined) values.description = changes.description;
  if (changes.kind !== undefined) values.kind = changes.kind;
  if (changes.query !== undefined) values.query = changes.query;
  tx.update(shelves).set(values).where(eq(shelves.id, id)).run();
  return true;
}

/** Deletes the shelf; its story links go with it (foreign-key cascade). */
export function deleteShelfRow(tx: Tx, id: string): boolean {
  return tx.delete(shelves).where(eq(shelves.id, id)).run().changes > 0;
}

const SORT_COLUMNS = { name: shelves.nameKey, createdAt: shelves.createdAt } as const;

function shelfOrder(sortBy: ShelfSortKey, direction: SortDirection): SQL[] {
  const by = direction === 'asc' ? asc : desc;
  return [by(SORT_COLUMNS[sortBy]), by(shelves.id)];
}

/** One page of shelves with their story counts, and how many shelves there are. */
export function listShelves(
  db: DbOrTx,
  sortBy: ShelfSortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
): { rows: ShelfWithCount[]; total: number } {
  const rows = db
    .select({ shelf: shelves, storyCount: storyCountColumn })
    .from(shelves)
    .orderBy(...shelfOrder(sortBy, direction))
    .limit(window.limit)
    .offset(window.offset)
    .all()
    .map((row) => ({ ...row.shelf, storyCount: row.storyCount }));
  const total = db.select({ total: count() }).from(shelves).get()?.total ?? 0;
  return { rows, total };
}

/** Every manual shelf, by name: the choices of the pages' "add to shelf" (bounded by the library's own shelves). */
export function manualShelves(db: DbOrTx, limit: number): { id: string; name: string }[] {
  return db.select({ id: shelves.id, name: shelves.name }).from(shelves).where(eq(shelves.kind, 'manual')).orderBy(asc(shelves.nameKey)).limit(limit).all();
}

/** The kinds of the shelves with these ids that exist. */
export function shelfKinds(db: DbOrTx, ids: readonly string[]): Map<string, ShelfKind> {
  if (ids.length === 0) return new Map();
  const rows = db.select({ id: shelves.id, kind: shelves.kind }).from(shelves).where(inArray(shelves.id, [...ids])).all();
  return new Map(rows.map((row) => [row.id, row.kind]));
}

const storyIdsInOrder = defineStatements((db: DbOrTx) =>
  db
    .select({ storyId: shelfStories.storyId })
    .from(shelfStories)
    .where(eq(shelfStories.shelfId, sql.placeholder('shelfId')))
    .orderBy(asc(shelfStories.position), asc(shelfStories.storyId))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(),
);

/** A window of a manual shelf's story ids in its order (position, then id for equal positions). */
export function shelfStoryIds(db: DbOrTx, shelfId: string, window: { limit: number; offset: number }): string[] {
  return storyIdsInOrder(db)
    .all({ shelfId, limit: window.limit, offset: window.offset })
    .map((row) => row.storyId);
}

export function shelfStoryCount(db: DbOrTx, shelfId: string): number {
  return db.select({ total: count() }).from(shelfStories).where(eq(shelfStories.shelfId, shelfId)).get()?.total ?? 0;
}

/** Makes the shelf's stories exactly `storyIds`, in that order (the ids must be distinct and exist). */
export function replaceShelfStories(tx: Tx, shelfId: string, storyIds: readonly string[]): void {
  tx.delete(shelfStories).where(eq(shelfStories.shelfId, shelfId)).run();
  const insert = insertLink(tx);
  storyIds.forEach((storyId, position) => insert.run({ shelfId, storyId, position }));
}

const insertLink = defineStatements((tx: Tx) =>
  tx
    .insert(shelfStories)
    .values({ shelfId: sql.placeholder('shelfId'), storyId: sql.placeholder('storyId'), position: sql.placeholder('position') })
    .onConflictDoNothing()
    .prepare(),
);

/** Adds the stories after the shelf's last, in this order; those already on it keep their place. Returns how many were added. */
export function appendShelfStories(tx: Tx, shelfId: string, storyIds: readonly string[]): number {
  const last = tx.select({ last: max(shelfStories.position) }).from(shelfStories).where(eq(shelfStories.shelfId, shelfId)).get()?.last ?? -1;
  const insert = insertLink(tx);
  let added = 0;
  for (const storyId of storyIds) added += insert.run({ shelfId, storyId, position: last + 1 + added }).changes;
  return added;
}

/** Takes the stories off the shelf. Returns how many were on it. */
export function removeShelfStories(tx: Tx, shelfId: string, storyIds: readonly string[]): number {
  if (storyIds.length === 0) return 0;
  return tx
    .delete(shelfStories)
    .where(and(eq(shelfStories.shelfId, shelfId), inArray(shelfStories.storyId, [...storyIds])))
    .run().changes;
}
