import { count, eq, isNotNull } from 'drizzle-orm';
import { authors, stories } from '../db/schema.js';
import type { DbOrTx } from '../db/open.js';
import { nextUpdatedAt } from '../lib/clock.js';

/**
 * Sets every `stories.cover_path` and `authors.avatar_image_path` equal to `relPath` to null
 * (both columns are indexed), stamping each changed row's `updatedAt` by the one rule of
 * src/lib/clock.ts. Returns how many rows changed. Run it inside a write transaction.
 */
export function clearImageReferences(tx: DbOrTx, relPath: string): number {
  const covers = tx.select({ id: stories.id, updatedAt: stories.updatedAt }).from(stories).where(eq(stories.coverPath, relPath)).all();
  for (const row of covers) {
    tx.update(stories).set({ coverPath: null, updatedAt: nextUpdatedAt(row.updatedAt) }).where(eq(stories.id, row.id)).run();
  }
  const avatars = tx.select({ id: authors.id, updatedAt: authors.updatedAt }).from(authors).where(eq(authors.avatarImagePath, relPath)).all();
  for (const row of avatars) {
    tx.update(authors).set({ avatarImagePath: null, updatedAt: nextUpdatedAt(row.updatedAt) }).where(eq(authors.id, row.id)).run();
  }
  return covers.length + avatars.length;
}

/**
 * How many stories and authors point at `relPath`: a replaced or deleted story's cover is only
 * removed from disk when this is 0 (docs/decisions.md, "Deleting").
 */
export function countImageReferences(db: DbOrTx, relPath: string): number {
  const covers = db.select({ n: count() }).from(stories).where(eq(stories.coverPath, relPath)).get()?.n ?? 0;
  const avatars = db.select({ n: count() }).from(authors).where(eq(authors.avatarImagePath, relPath)).get()?.n ?? 0;
  return covers + avatars;
}

/**
 * Every path some story or author references, in one read of the two indexes (the startup
 * sweep asks about each stored image: one query each was ~0.1-0.25 s at 100k stories).
 */
export function referencedImagePaths(db: DbOrTx): Set<string> {
  const covers = db.select({ path: stories.coverPath }).from(stories).where(isNotNull(stories.coverPath)).all();
  const avatars = db.select({ path: authors.avatarImagePath }).from(authors).where(isNotNull(authors.avatarImagePath)).all();
  return new Set([...covers, ...avatars].map((row) => row.path as string));
}
