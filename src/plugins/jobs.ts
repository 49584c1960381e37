import fp from 'fastify-plugin';
import { JobRunner } from '../jobs/runner.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The background job runner (docs/architecture.md, "Background jobs"): register kinds, queue, cancel. */
    jobs: JobRunner;
  }
}

/**
 * The one job runner of the process. Kinds are registered by the plugins after this one; the
 * runner starts once the app is ready (every kind known, interrupted jobs queued again) and stops
 * on close before the database closes, a running job going back to `queued` between two items.
 */
export const jobsPlugin = fp(
  async (app) => {
    const runner = new JobRunner(app.db, app.log);
    app.decorate('jobs', runner);
    app.addHook('onReady', async () => runner.start());
    app.addHook('onClose', async () => runner.stop());
  },
  { name: 'storyshelf-jobs', fastify: '5.x', dependencies: ['storyshelf-db'] },
);
