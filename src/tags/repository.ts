import { and, asc, count, desc, eq, gt, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm';
import { namedListShape, namedListWhere, nameKeyContainsParams, type NamedListFilter } from '../db/name-filter.js';
import { defineStatements, defineStatementShapes, sqliteClient } from '../db/statements.js';
import type { DbOrTx } from '../db/open.js';
import { tags, type TagRow } from '../db/schema.js';
import { newId, nextUpdatedAt, nowIso } from '../lib/clock.js';
import { likePrefix, nameKey } from '../lib/names.js';
import type { SortDirection } from '../lib/pagination.js';
import { TAG_KINDS, type TagKind, type TagSortKey } from '../schemas/tag.js';


const SORT_COLUMNS = { name: tags.name, createdAt: tags.createdAt, storyCount: tags.storyCount } as const;

/** ORDER BY for a tag list; ties are broken by id so pages never repeat or skip rows. */
function tagOrder(sortBy: TagSortKey, direction: SortDirection): SQL[] {
  const by = direction === 'asc' ? asc : desc;
  return [by(SORT_COLUMNS[sortBy]), by(tags.id)];
}

const byId = defineStatements((db: DbOrTx) => db.select().from(tags).where(eq(tags.id, sql.placeholder('id'))).prepare());

export function findTagById(db: DbOrTx, id: string): TagRow | undefined {
  return byId(db).get({ id });
}

const byNameKey = defineStatements((db: DbOrTx) => db.select().from(tags).where(eq(tags.nameKey, sql.placeholder('key'))).prepare());

/** The tag whose name folds like `name` (docs/decisions.md, "Name keys (case folding)"). */
export function findTagByName(db: DbOrTx, name: string): TagRow | undefined {
  return byNameKey(db).get({ key: nameKey(name) });
}

/** True when another tag (not `exceptId`) already has a name that folds like this one. */
export function tagNameTaken(db: DbOrTx, name: string, exceptId?: string): boolean {
  const key = eq(tags.nameKey, nameKey(name));
  const condition = exceptId === undefined ? key : and(key, ne(tags.id, exceptId));
  return db.select({ id: tags.id }).from(tags).where(condition).get() !== undefined;
}

/** `name` is the stored (lowercased) name; its key is derived here, as for every write. */
export function insertTag(db: DbOrTx, name: string): TagRow {
  const now = nowIso();
  return db.insert(tags).values({ id: newId(), name, nameKey: nameKey(name), createdAt: now, updatedAt: now }).returning().get();
}

/** Renames the tag, bumping `updatedAt` by the rule of src/lib/clock.ts; undefined when absent. */
export function renameTag(db: DbOrTx, id: string, name: string): TagRow | undefined {
  const previous = db.select({ updatedAt: tags.updatedAt }).from(tags).where(eq(tags.id, id)).get();
  if (previous === undefined) return undefined;
  return db.update(tags).set({ name, nameKey: nameKey(name), updatedAt: nextUpdatedAt(previous.updatedAt) }).where(eq(tags.id, id)).returning().get();
}

/**
 * The stored name of the tag each given name folds to, by that name; names no tag has are
 * absent. The Typesense documents carry stored names (unique, like the keys), so a filter can
 * name a tag exactly whatever spelling was asked for.
 */
export function storedNamesByFold(db: DbOrTx, names: readonly string[]): Map<string, string> {
  const keys = new Map(names.map((name) => [name, nameKey(name)]));
  const rows = db
    .select({ name: tags.name, nameKey: tags.nameKey })
    .from(tags)
    .where(sql`${tags.nameKey} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(keys.values())])}))`)
    .all();
  const byKey = new Map(rows.map((row) => [row.nameKey, row.name]));
  const found = new Map<string, string>();
  for (const [name, key] of keys) {
    const stored = byKey.get(key);
    if (stored !== undefined) found.set(name, stored);
  }
  return found;
}

export function deleteTag(db: DbOrTx, id: string): boolean {
  return db.delete(tags).where(eq(tags.id, id)).run().changes > 0;
}

/** `kind`: only tags of that kind (the OPDS "By fandom" feed, docs/decisions.md "Tag kinds"). */
export type TagListFilter = NamedListFilter & { kind?: TagKind };

/** The statements of one shape of tag page (sort, direction, name filter), prepared once per connection. */
const tagPageShapes = defineStatementShapes();

function tagPageStatements(db: DbOrTx, sortBy: TagSortKey, direction: SortDirection, filter: TagListFilter) {
  // Seven kinds at most: each is a shape of its own, its value part of the statement.
  return tagPageShapes(db, `${sortBy}:${direction}:${namedListShape(filter)}:${filter.kind ?? ''}`, () => {
    const where = filter.kind === undefined ? namedListWhere(tags, filter) : and(namedListWhere(tags, filter), eq(tags.kind, filter.kind));
    return {
      rows: db
        .select()
        .from(tags)
        .where(where)
        .orderBy(...tagOrder(sortBy, direction))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare(),
      total: db.select({ total: count() }).from(tags).where(where).prepare(),
    };
  });
}

export function listTags(
  db: DbOrTx,
  filter: TagListFilter,
  sortBy: TagSortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
): { rows: TagRow[]; total: number } {
  const statements = tagPageStatements(db, sortBy, direction, filter);
  const pattern = nameKeyContainsParams(filter.nameContains);
  const rows = statements.rows.all({ ...pattern, limit: window.limit, offset: window.offset });
  const total = statements.total.get(pattern)?.total ?? 0;
  return { rows, total };
}

const autocomplete = defineStatements((db: DbOrTx) =>
  db
    .select()
    .from(tags)
    .where(sql`${tags.nameKey} LIKE ${sql.placeholder('pattern')} ESCAPE '\\'`)
    .orderBy(desc(tags.storyCount), asc(tags.name))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/** Names whose fold starts with `prefix` (already folded), most used first, then by name (docs/decisions.md, "Lists and pagination"). */
export function autocompleteTags(db: DbOrTx, prefix: string, limit: number): TagRow[] {
  return autocomplete(db).all({ pattern: likePrefix(prefix), limit });
}

const popular = defineStatements((db: DbOrTx) =>
  db.select().from(tags).where(gt(tags.storyCount, 0)).orderBy(desc(tags.storyCount), asc(tags.name)).limit(sql.placeholder('limit')).prepare(),
);

/** Most used first, then by name; only tags some story uses. */
export function popularTags(db: DbOrTx, limit: number): TagRow[] {
  return popular(db).all({ limit });
}

/** The most used tags of each kind: one bounded read of `tags_kind_idx` per kind, in one statement. */
const mostUsedOfKinds = defineStatements((db: DbOrTx) =>
  sqliteClient(db).prepare<{ limit: number }, { kind: TagKind; name: string; storyCount: number }>(
    TAG_KINDS.map(
      (kind) => `SELECT * FROM (SELECT kind, name, story_count AS storyCount FROM tags INDEXED BY tags_kind_idx
        WHERE kind = '${kind}' AND story_count > 0 ORDER BY story_count DESC, name LIMIT @limit)`,
    ).join(' UNION ALL '),
  ),
);

/**
 * Each kind's `limit` most used tags (docs/decisions.md, "Tag kinds"), most stories first, then by
 * name, grouped by kind in `TAG_KINDS` order; a kind without a used tag is absent.
 */
export function mostUsedTagsByKind(db: DbOrTx, limit: number): Array<{ kind: TagKind; name: string; storyCount: number }> {
  return mostUsedOfKinds(db).all({ limit });
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

const byNameKeys = defineStatements((db: DbOrTx) =>
  db
    .select()
    .from(tags)
    .where(sql`${tags.nameKey} IN (SELECT value FROM json_each(${sql.placeholder('keys')}))`)
    .prepare(),
);

/**
 * Finds each named tag (names already cleaned and lowercased) by its fold or creates it, returning
 * rows in the order given, one per fold: "ΣΟΦΟΣ" and "σοφοσ" are one tag, created with the
 * first spelling. Used by story create/update (`tagNames`).
 */
export function findOrCreateTags(db: DbOrTx, names: readonly string[]): TagRow[] {
  const byKey = new Map<string, string>();
  for (const name of names) {
    const key = nameKey(name);
    if (!byKey.has(key)) byKey.set(key, name);
  }
  if (byKey.size === 0) return [];
  const existing = byNameKeys(db).all({ keys: JSON.stringify([...byKey.keys()]) });
  const found = new Map(existing.map((row) => [row.nameKey, row]));
  return [...byKey].map(([key, name]) => found.get(key) ?? insertTag(db, name));
}

/**
 * Gives these tags the kinds named for them (by name key) where they have none yet: the first
 * kind a tag is given sticks, and a reader's own tag gains the kind its source gives it
 * (docs/decisions.md, "Tag kinds").
 */
export function setMissingTagKinds(tx: DbOrTx, rows: readonly TagRow[], kinds: ReadonlyMap<string, TagKind>): void {
  for (const row of rows) {
    const kind = kinds.get(row.nameKey);
    if (kind === undefined || row.kind !== null) continue;
    tx.update(tags).set({ kind }).where(and(eq(tags.id, row.id), isNull(tags.kind))).run();
    row.kind = kind;
  }
}
