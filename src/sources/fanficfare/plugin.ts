import fp from 'fastify-plugin';
import { FanficfareEngine } from './engine.js';
import { fanficfareImportHandler, IMPORT_FANFICFARE_KIND } from './job.js';
import { fanficfareRefreshHandler, REFRESH_FANFICFARE_KIND, startFanficfareRefresh, type FanficfareRefreshDeps } from './refresh.js';
import { startFanficfareImport } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** FanFicFare as an optional engine (docs/decisions.md, "Sources"); off unless `FANFICFARE_COMMAND` is set. */
    fanficfare: FanficfareEngine;
    /**
     * Queues FanFicFare's import of an address it takes ({@link startFanficfareImport}); undefined when it does not.
     * A decoration, so the URL import route (src/import/url/routes.ts) reaches it without src/import importing src/sources.
     */
    startFanficfareImport: (rawUrl: string, update: boolean) => Promise<string | undefined>;
    /** What refreshing a story that follows a FanFicFare source needs (src/follow/ runs or queues it: ./refresh.ts). */
    fanficfareRefresh: FanficfareRefreshDeps & { start: (storyId: string) => string };
  }
}

/**
 * The FanFicFare engine of the app and its job kinds, `import-fanficfare` and
 * `refresh-fanficfare` (registered even when it is off, so a queued job fails with a clear error
 * rather than an unknown kind).
 */
export const fanficfarePlugin = fp(
  async (app) => {
    const engine = new FanficfareEngine(app.config.fanficfare, app.config.dataDir);
    const deps: FanficfareRefreshDeps = { db: app.db, images: app.images, engine, checkIntervalHours: app.config.sourceCheckIntervalHours, dataDir: app.config.dataDir, updates: app.urlImports.updates };
    app.decorate('fanficfare', engine);
    app.decorate('startFanficfareImport', (rawUrl: string, update: boolean) => startFanficfareImport(engine, app.jobs, app.db, rawUrl, update));
    app.decorate('fanficfareRefresh', { ...deps, start: (storyId: string) => startFanficfareRefresh(deps, app.jobs, storyId) });
    app.jobs.register(IMPORT_FANFICFARE_KIND, fanficfareImportHandler(app.config.dataDir, { db: app.db, images: app.images }, engine, app.config.sourceCheckIntervalHours));
    app.jobs.register(REFRESH_FANFICFARE_KIND, fanficfareRefreshHandler(deps));
  },
  { name: 'storyshelf-fanficfare', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-images', 'storyshelf-url-import'] },
);
