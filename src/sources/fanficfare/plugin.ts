import fp from 'fastify-plugin';
import { FanficfareEngine } from './engine.js';
import { fanficfareImportHandler, IMPORT_FANFICFARE_KIND } from './job.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** FanFicFare as an optional engine (docs/decisions.md, "Sources"); off unless `FANFICFARE_COMMAND` is set. */
    fanficfare: FanficfareEngine;
  }
}

/** The FanFicFare engine of the app and its `import-fanficfare` job kind (registered even when it is off, so a queued job fails with a clear error rather than an unknown kind). */
export const fanficfarePlugin = fp(
  async (app) => {
    const engine = new FanficfareEngine(app.config.fanficfare, app.config.dataDir);
    app.decorate('fanficfare', engine);
    app.jobs.register(IMPORT_FANFICFARE_KIND, fanficfareImportHandler(app.config.dataDir, app.images, engine));
  },
  { name: 'storyshelf-fanficfare', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-images'] },
);
