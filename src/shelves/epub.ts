import { collectionEpub, MAX_BOOK_STORIES, type EpubDeps, type EpubFile } from '../epub/service.js';
import type { SearchEngine } from '../search/engine.js';
import { shelfStoryIdPage } from './service.js';

/**
 * `GET /api/shelves/{id}/epub`: the shelf as one book, in the shelf's order (a smart shelf's as its
 * search finds them now), made as a tag's book is (docs/decisions.md, "EPUB export"): at most
 * {@link MAX_BOOK_STORIES} stories (413 beyond), recorded as kind `shelf` for KOReader sync.
 */
export async function shelfEpub(deps: EpubDeps, engine: SearchEngine, id: string): Promise<EpubFile> {
  // One more than a book holds: enough to tell that there are too many.
  const { shelf, ids } = await shelfStoryIdPage(deps.db, engine, id, { page: 0, size: MAX_BOOK_STORIES + 1 });
  return collectionEpub(deps, { kind: 'shelf', id, title: `Shelf: ${shelf.name}`, description: shelf.description, updatedAt: shelf.updatedAt, storyIds: ids });
}
