/**
 * The one order in which a row's image changes (issue 3, STYLE.md habit 8): the new file is
 * already on disk (an upload wrote it), the row changes in one write transaction, and only after
 * the commit are the files the row no longer names removed, and only when no other story or
 * author still names them. A crash at any point leaves at worst an unreferenced file, never a
 * row naming a missing one. Story covers, author avatars, the multipart author update and the
 * deletes of stories and authors all go through here.
 */
import type { Db } from '../db/open.js';
import { writeTransaction, type Tx } from '../db/transaction.js';
import type { ImageStore } from '../images/store.js';
import { countImageReferences } from './repository.js';

/** What a write reports back: its result and the image paths it stopped referencing. */
export interface ImageWrite<T> {
  result: T;
  /** The previous `coverPath` / `avatarImagePath` values this write replaced or cleared. */
  released: ReadonlyArray<string | null | undefined>;
}

/**
 * Runs `write` in a write transaction. If it throws (404, 400, a constraint), `newImage` (the
 * file the request uploaded, if any) is removed and the error rethrown, so a failed request
 * leaves nothing behind. After a commit, every released path that is not `newImage` and is no
 * longer referenced anywhere is removed from disk (failures are logged, not thrown: the change
 * itself has happened).
 */
export async function commitImageChange<T>(
  db: Db,
  store: ImageStore,
  newImage: string | undefined,
  write: (tx: Tx) => ImageWrite<T>,
): Promise<T> {
  let outcome: ImageWrite<T>;
  try {
    outcome = writeTransaction(db, write);
  } catch (error) {
    await store.removeImageQuietly(newImage);
    throw error;
  }
  await releaseImages(db, store, outcome.released.filter((relPath) => relPath !== newImage));
  return outcome.result;
}

/**
 * Removes each of `relPaths` that no story or author references any more. Call it after the
 * commit that dropped the references (a deleted story's cover, a deleted author's avatar).
 */
export async function releaseImages(db: Db, store: ImageStore, relPaths: ReadonlyArray<string | null | undefined>): Promise<void> {
  for (const relPath of new Set(relPaths)) {
    if (relPath === null || relPath === undefined || relPath === '') continue;
    if (countImageReferences(db, relPath) > 0) continue;
    await store.removeImageQuietly(relPath);
  }
}
