/**
 * Zero-downtime rebuild of the Typesense collections (docs/decisions.md, "Search › Reindex and
 * health": fresh collections are filled, then an alias is pointed at them, so searches keep
 * working during the rebuild).
 *
 * 1. Create `<prefix>_stories_<version>` and `<prefix>_authors_<version>` with their schemas.
 * 2. Import every story and author into them, page by page in `seq` order, reading each page
 *    from the tables as it goes. The outbox worker keeps delivering to the aliases (the old
 *    collections, which keep serving fresh results); the caller remembers what it delivered.
 * 3. Point the aliases at the new collections: searches move over in one step. The caller's
 *    `aroundSwap` holds the worker for this step and queues again whatever the worker delivered
 *    to the old collections during the rebuild, which then goes to the new ones. (A change that
 *    was already in an imported page is delivered twice, harmlessly.)
 * 4. Drop the old collections and any left over by an interrupted rebuild.
 *
 * Until step 3 the old collections (or, on a first start, the embedded engine) answer every
 * search. A document Typesense refuses does not fail the rebuild: it is queued in the outbox and
 * retried with backoff like any other change. A failure before step 3 drops the new collections.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/open.js';
import { bookkeepingTransaction } from '../../db/bookkeeping.js';
import { enqueueChanges } from './outbox.js';
import { describeError, type TypesenseGateway } from './client.js';
import { authorDocumentPage, storyDocumentPage } from './documents.js';
import { aliasName, collectionName, collectionSchema, COLLECTION_KINDS, isOwnCollection, type CollectionKind } from './schema.js';

/** Documents per import request during a rebuild. */
const PAGE_SIZE = 200;

let lastVersion = 0;
/** A collection version: the time in ms, strictly increasing within the process. */
function nextVersion(): number {
  lastVersion = Math.max(Date.now(), lastVersion + 1);
  return lastVersion;
}

/** Imports every document of one kind; returns how many Typesense accepted. */
async function importAll(db: Db, gateway: TypesenseGateway, kind: CollectionKind, collection: string, log: FastifyBaseLogger): Promise<number> {
  let after = 0;
  let accepted = 0;
  for (;;) {
    const page = kind === 'stories' ? storyDocumentPage(db, after, PAGE_SIZE) : authorDocumentPage(db, after, PAGE_SIZE);
    if (page.documents.length === 0) return accepted;
    after = page.next;
    const lines = await gateway.importDocuments(collection, page.documents);
    const refused: string[] = [];
    lines.forEach((line, index) => {
      if (line.success) accepted += 1;
      else refused.push((page.documents[index] as { id: string }).id);
    });
    if (refused.length > 0) {
      log.warn({ kind, refused: refused.length, error: lines.find((line) => !line.success)?.error }, 'Typesense refused documents during the rebuild; they are queued for retry');
      const ids = refused.map((id) => ({ seq: 0, id }));
      bookkeepingTransaction(db, (tx) => enqueueChanges(tx, kind === 'stories' ? { stories: ids, authors: [] } : { stories: [], authors: ids }));
    }
  }
}

/**
 * Builds fresh versioned collections from the tables and swaps the aliases to them (see the file
 * comment). Resolves to the number of stories Typesense indexed.
 */
export async function rebuildCollections(
  db: Db,
  gateway: TypesenseGateway,
  prefix: string,
  log: FastifyBaseLogger,
  aroundSwap: (swap: () => Promise<void>) => Promise<void> = (swap) => swap(),
): Promise<number> {
  const version = nextVersion();
  const fresh = Object.fromEntries(COLLECTION_KINDS.map((kind) => [kind, collectionName(prefix, kind, version)])) as Record<CollectionKind, string>;
  let storiesCount = 0;
  try {
    for (const kind of COLLECTION_KINDS) await gateway.createCollection(collectionSchema(kind, fresh[kind]));
    storiesCount = await importAll(db, gateway, 'stories', fresh.stories, log);
    await importAll(db, gateway, 'authors', fresh.authors, log);
  } catch (error) {
    await Promise.allSettled(COLLECTION_KINDS.map((kind) => gateway.dropCollection(fresh[kind])));
    throw error;
  }
  await aroundSwap(async () => {
    for (const kind of COLLECTION_KINDS) await gateway.upsertAlias(aliasName(prefix, kind), fresh[kind]);
  });

  try {
    for (const name of await gateway.collectionNames()) {
      const stale = COLLECTION_KINDS.some((kind) => isOwnCollection(prefix, kind, name) && name !== fresh[kind]);
      if (stale) await gateway.dropCollection(name);
    }
  } catch (error) {
    // The swap is done; a leftover collection only costs memory until the next rebuild.
    log.warn({ error: describeError(error) }, 'old Typesense collections could not all be dropped');
  }
  log.info({ version, storiesCount }, 'Typesense collections rebuilt and aliases swapped');
  return storiesCount;
}
