import fp from 'fastify-plugin';
import { rederiveStoryTexts } from '../stories/text-rederive.js';

/**
 * Derives again, in the background after start-up, the plain text of the stories a migration
 * listed (src/stories/text-rederive.ts). Registered after the search plugin, so each batch's
 * search changes reach the active engine; stopped before the database closes, between batches.
 */
export const textRederivePlugin = fp(
  async (app) => {
    const controller = new AbortController();
    let running: Promise<unknown> | undefined;
    app.addHook('onReady', async () => {
      running = rederiveStoryTexts(app.db, controller.signal).then(
        (report) => {
          if (report.listed > 0) app.log.info(report, 'story plain texts derived again');
        },
        (error: unknown) => app.log.error({ err: error }, 'deriving story plain texts again failed; the rest is tried at the next start'),
      );
    });
    app.addHook('onClose', async () => {
      controller.abort();
      await running;
    });
  },
  { name: 'storyshelf-text-rederive', fastify: '5.x', dependencies: ['storyshelf-db', 'storyshelf-search'] },
);
