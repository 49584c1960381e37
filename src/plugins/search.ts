import fp from 'fastify-plugin';
import { writeTransaction } from '../db/transaction.js';
import type { SearchEngine } from '../search/engine.js';
import { EmbeddedSearchEngine } from '../search/fts5.js';
import { onSearchChanges } from '../search/sync.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The active search engine: routes call this without knowing which engine it is. (Not
     * `search`: Fastify 5 already has `app.search()`, the route shorthand of the SEARCH method.)
     */
    searchEngine: SearchEngine;
  }
}

/**
 * The search engine (decisions.md, "Search"): the embedded SQLite FTS5 engine, always on. At
 * startup it indexes whatever changed outside a write transaction (rows that were in the
 * library before the search migration, or written by a script), so the index starts in step
 * with the tables; then it subscribes the engine to every later sync.
 */
export const searchPlugin = fp(
  async (app) => {
    const engine: SearchEngine = new EmbeddedSearchEngine(app.db, app.log);
    writeTransaction(app.db, () => undefined);
    const unsubscribe = onSearchChanges(app.db, (tx, changes) => engine.documentsChanged(tx, changes));
    app.decorate('searchEngine', engine);
    app.addHook('onClose', async () => {
      unsubscribe();
      await engine.close();
    });
  },
  { name: 'storyshelf-search', fastify: '5.x', dependencies: ['storyshelf-db'] },
);
