import { count, eq, isNotNull, sql } from 'drizzle-orm';
import { authors, stories } from '../db/schema.js';
import type { DbOrTx } from '../db/open.js';
import { nextUpdatedAt } from '../lib/clock.js';
import { INLINE_IMAGE_PREFIX, inlineImagePaths } from './inline-images.js';

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
  if (relPath.startsWith('inline/')) return countInlineReferences(db, relPath);
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

/**
 * How many story bodies name the inline image `relPath` (src/images/inline-images.ts). No index
 * covers text inside bodies, so this reads every body: it runs only when an imported story's
 * image is released (the story deleted, or its body edited without the image).
 */
function countInlineReferences(db: DbOrTx, relPath: string): number {
  const url = `${INLINE_IMAGE_PREFIX}${relPath.slice('inline/'.length)}`;
  return db.select({ n: count() }).from(stories).where(sql`instr(${stories.contentHtml}, ${url}) > 0`).get()?.n ?? 0;
}

/**
 * Every inline image some story body names. It reads every body, so the startup sweep asks for it
 * only when the `inline/` folder holds an image that no marker explains (see image-changes.ts).
 */
export function referencedInlineImages(db: DbOrTx): Set<string> {
  const rows = db
    .select({ html: stories.contentHtml })
    .from(stories)
    .where(sql`instr(${stories.contentHtml}, ${INLINE_IMAGE_PREFIX}) > 0`)
    .all();
  return new Set(rows.flatMap((row) => inlineImagePaths(row.html)));
}
