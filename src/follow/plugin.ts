import fp from 'fastify-plugin';
import { SOURCE_CHECK_KIND, SourceScheduler, sourceCheckHandler } from './scheduler.js';

/**
 * Following sources (docs/decisions.md, "Sources"): the `source-check` job kind and the app's
 * schedule (`SOURCE_CHECK_INTERVAL_HOURS`), started once the app is ready and stopped when it
 * closes, before the job runner.
 */
export const followPlugin = fp(
  async (app) => {
    app.jobs.register(SOURCE_CHECK_KIND, sourceCheckHandler({ urlImports: app.urlImports, fanficfare: app.fanficfareRefresh }, app.config.dataDir));
    const scheduler = new SourceScheduler(app.db, app.jobs, app.config.sourceCheckIntervalHours);
    app.decorate('sourceSchedule', scheduler);
    app.addHook('onReady', async () => scheduler.start());
    app.addHook('onClose', async () => scheduler.stop());
  },
  { name: 'storyshelf-follow', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-url-import', 'storyshelf-fanficfare'] },
);

declare module 'fastify' {
  interface FastifyInstance {
    /** The schedule of source checks (src/follow/scheduler.ts); tests call its `tick` directly. */
    sourceSchedule: SourceScheduler;
  }
}
