import fp from 'fastify-plugin';
import { writeTransaction } from '../db/transaction.js';
import type { SearchEngine } from '../search/engine.js';
import { EmbeddedSearchEngine } from '../search/embedded/engine.js';
import { createSearchPool } from '../search/embedded/search-pool.js';
import { installOutboxTriggers } from '../search/typesense/outbox.js';
import { onSearchChanges } from '../search/embedded/sync.js';
import type { TypesenseSearchEngine } from '../search/typesense/engine.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The active search engine: routes call this without knowing which engine it is. (Not
     * `search`: Fastify 5 already has `app.search()`, the route shorthand of the SEARCH method.)
     */
    searchEngine: SearchEngine;
  }
}

/** docs/decisions.md, "Running the service": on shutdown, flush the search outbox if it can within 5 s. */
export const SHUTDOWN_FLUSH_MS = 5000;

/**
 * The search engine (docs/decisions.md, "Search"): the embedded SQLite FTS5 engine, always on,
 * and with TYPESENSE_URL set, Typesense in front of it (src/search/typesense/engine.ts), fed by the
 * outbox. The engine subscribes to every sync first; then whatever changed outside a write
 * transaction (rows that were in the library before the search migration, or written by a
 * script) is indexed, so the index, and with Typesense the outbox, start in step with the
 * tables. Typesense itself is contacted in the background: the app never waits for it.
 *
 * The embedded engine's queries run on the search worker pool (`SEARCH_WORKERS` threads,
 * docs/decisions.md, "Search worker pool"), whose threads start when the server listens (or with
 * the first search) and end when the app closes.
 */
/** How long after start-up the typo vocabulary's first check waits. */
const TERMS_START_DELAY_MS = 5_000;

export const searchPlugin = fp(
  async (app) => {
    const { searchWorkers, searchQueueMax } = app.config;
    const pool =
      searchWorkers === 0
        ? undefined
        : createSearchPool({
            file: app.db.$client.name,
            threads: searchWorkers,
            queueMax: searchQueueMax,
            onThreadError: (error) => app.log.error({ err: error }, 'a search worker thread died; it is replaced'),
          });
    const embedded = new EmbeddedSearchEngine(app.db, app.log, pool);
    let engine: SearchEngine = embedded;
    let typesense: TypesenseSearchEngine | undefined;
    if (app.config.typesense !== undefined) {
      // Loaded only when configured: the Typesense client is ~55 ms of every start-up otherwise.
      const { TypesenseSearchEngine } = await import('../search/typesense/engine.js');
      installOutboxTriggers(app.db);
      typesense = new TypesenseSearchEngine(app.db, embedded, app.config.typesense, app.log.child({ engine: 'typesense' }));
      engine = typesense;
    }
    const unsubscribe = onSearchChanges(app.db, (tx, changes) => engine.documentsChanged(tx, changes));
    writeTransaction(app.db, () => undefined);
    app.decorate('searchEngine', engine);
    // A listening server starts its search threads at once, so the first search does not wait
    // for one to load; an app driven by inject (tests, scripts) starts them on its first search.
    app.addHook('onListen', (done) => {
      pool?.warm();
      done();
    });
    // The vocabulary upkeep waits a few seconds after start-up: the refill after an upgrade (an
    // empty table at 100,000 stories: 7 chunks, 2.7 s of pool reads) competed with the start
    // and delayed the first answer from ~1.8 s to 3.3 s on the bench library.
    app.addHook('onReady', async () => {
      setTimeout(() => embedded.start(), TERMS_START_DELAY_MS).unref();
    });
    typesense?.start();
    app.addHook('preClose', (done) => {
      engine.stopLongWork();
      done();
    });
    app.addHook('onClose', async () => {
      await engine.flush?.(SHUTDOWN_FLUSH_MS);
      unsubscribe();
      // Typesense closes its embedded fallback, which holds the search threads.
      await engine.close();
    });
  },
  { name: 'storyshelf-search', fastify: '5.x', dependencies: ['storyshelf-db'] },
);
