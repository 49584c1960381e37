/**
 * The one order in which a row's image changes (docs/decisions.md, "Images › Changing and
 * removing"; docs/architecture.md, "Ten habits", 8): the new file is already on disk (an upload
 * wrote it, or an earlier upload is attached by path), the row changes in one write transaction,
 * and only after the commit are the files the row no longer names removed, and only when no other
 * story or author still names them. A crash at any point leaves at worst an unreferenced file,
 * never a row naming a missing one. Story covers, author avatars, the multipart author update,
 * `coverPath` / `avatarImagePath` in bodies and the deletes of stories and authors all go through
 * here.
 *
 * Two checks here depend on the disk or the database staying as they were until an action that
 * follows (exists -> commit a reference; unreferenced -> remove). Both run under the store's
 * per-path lock, so for one file they never interleave.
 *
 * A crash between a file change and its commit leaves at worst a file nothing names, never a
 * row naming a missing file; {@link sweepUnreferencedImages} removes such files at the next start.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/open.js';
import type { authors, stories } from '../db/schema.js';
import { batchedWrite } from '../db/write-batch.js';
import { nextUpdatedAt } from '../lib/clock.js';
import type { WarnLog } from '../lib/warn-log.js';
import type { ImageKind } from './image-path.js';
import type { ImageStore } from './store.js';
import { countImageReferences, referencedImagePaths, referencedInlineImages } from './references.js';

/** What a write reports back: its result and the image paths it stopped referencing. */
export interface ImageWrite<T> {
  result: T;
  /** The previous `coverPath` / `avatarImagePath` values this write replaced or cleared. */
  released: ReadonlyArray<string | null | undefined>;
}

/** A stored image a body names (docs/decisions.md, "Images": `coverPath`, `avatarImagePath`). */
export interface AttachedImage {
  kind: ImageKind;
  /** The path as the client sent it; the store checks it again. */
  path: string;
  /** The body field, for the 400 `details`. */
  field: string;
}

export interface ImageChange {
  /** The image this request uploaded: discarded if the write fails. */
  upload?: string | undefined;
  /**
   * An earlier upload the write will reference: it must exist under its kind's folder (else 400
   * on its field, and the write does not run), and it is held from that check to the commit, so
   * a concurrent release or `DELETE /api/files/images` cannot remove it in between.
   */
  attach?: AttachedImage | undefined;
}

/**
 * Runs `write` in a write transaction (grouped with the writes of other requests in the same turn
 * of the event loop: src/db/write-batch.ts). If it throws (404, 400, a constraint), the request's own
 * upload is discarded and the error rethrown, so a failed request leaves nothing behind (an
 * attached earlier upload is left alone). After a commit, every released path that the write
 * did not just set and that is no longer referenced anywhere is moved to the trash (failures are
 * logged, not thrown: the change itself has happened).
 */
export async function commitImageChange<T>(db: Db, store: ImageStore, change: ImageChange, write: (tx: Tx) => ImageWrite<T>): Promise<T> {
  const { upload, attach } = change;
  let outcome: ImageWrite<T>;
  try {
    outcome =
      attach === undefined
        ? await batchedWrite(db, write)
        : await store.exclusively(attach.path, async () => {
            await store.assertStoredImage(attach.kind, attach.path, attach.field);
            return batchedWrite(db, write);
          });
  } catch (error) {
    await store.discardUpload(upload);
    throw error;
  }
  // A row names the attached upload now: it no longer waits (and is released like any other).
  if (attach !== undefined) await store.clearUnattached(attach.path);
  const kept = new Set([upload, attach?.path]);
  await releaseImages(db, store, outcome.released.filter((relPath) => !kept.has(relPath ?? undefined)));
  return outcome.result;
}

/** A column that names one stored image of its row: a story's cover, an author's avatar. */
export interface ImageColumn {
  table: typeof stories | typeof authors;
  column: typeof stories.coverPath | typeof authors.avatarImagePath;
  /** The 404 for an owner id that names no row. */
  notFound: (id: string) => Error;
}

/**
 * Sets `column` of the row `id` to `path` (the request's own upload) or clears it (`null`),
 * stamping the row's `updatedAt` by the rule of src/lib/clock.ts, and releases the image it
 * named, all through {@link commitImageChange}. 404 (`notFound`) when there is no such row, also
 * when it was deleted while the upload streamed. Clearing a column that is already empty changes
 * nothing and returns false; every other call returns true. Of concurrent calls for one row
 * every one succeeds and the last to commit wins.
 */
export async function setImageColumn(db: Db, store: ImageStore, image: ImageColumn, id: string, path: string | null): Promise<boolean> {
  const { table, column } = image;
  return commitImageChange(db, store, { upload: path ?? undefined }, (tx) => {
    const current = tx.select({ path: column, updatedAt: table.updatedAt }).from(table).where(eq(table.id, id)).get();
    if (current === undefined) throw image.notFound(id);
    if (path === null && current.path === null) return { result: false, released: [] };
    const stamp = nextUpdatedAt(current.updatedAt);
    tx.run(sql`UPDATE ${table} SET ${sql.identifier(column.name)} = ${path}, ${sql.identifier(table.updatedAt.name)} = ${stamp} WHERE ${table.id} = ${id}`);
    return { result: true, released: [current.path] };
  });
}

/**
 * The startup sweep (before the first request): images that no story or author names and that
 * do not wait to be attached go to the trash; see `ImageStore.sweepUnreferenced`. They are what
 * a crash between a file change and its commit leaves behind.
 */
export async function sweepUnreferencedImages(db: Db, store: ImageStore, log: WarnLog): Promise<void> {
  const referenced = referencedImagePaths(db);
  // Story bodies are read only if the inline folder holds an image in question.
  let inline: Set<string> | undefined;
  const isReferenced = (relPath: string) => (relPath.startsWith('inline/') ? (inline ??= referencedInlineImages(db)).has(relPath) : referenced.has(relPath));
  const trashed = await store.sweepUnreferenced(isReferenced);
  if (trashed.length > 0) log.warn({ images: trashed }, 'moved images that nothing names to the trash (left by an interrupted change)');
}

/**
 * Moves each of `relPaths` that no story or author references any more to the trash. Call it
 * after the commit that dropped the references (a deleted story's cover, a deleted author's
 * avatar). Each path is held while it is counted and removed (see the module comment).
 */
export async function releaseImages(db: Db, store: ImageStore, relPaths: ReadonlyArray<string | null | undefined>): Promise<void> {
  for (const relPath of new Set(relPaths)) {
    if (relPath === null || relPath === undefined || relPath === '') continue;
    await store.exclusively(relPath, async () => {
      if (countImageReferences(db, relPath) > 0) return;
      await store.removeImageQuietly(relPath);
    });
  }
}
