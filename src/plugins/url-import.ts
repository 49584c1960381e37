import fp from 'fastify-plugin';
import { ExtractPool } from '../import/url/extract-pool.js';
import { SiteQueue } from '../import/url/site-queue.js';
import { KeyedLock } from '../lib/keyed-lock.js';
import type { UrlImportDeps } from '../import/url/service.js';
import { SILENT_NOTIFIER } from '../import/url/update-notifier.js';
import { UpdateWebhook } from '../follow/webhook.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What a URL import needs (src/import/url/service.ts): the database, the image store, the extraction workers, IMPORT_ALLOW_HOSTS, the per-URL locks and the update webhook. */
    urlImports: UrlImportDeps;
  }
}

/**
 * The URL import's shared parts: one bounded pool of extraction workers per app (started on the
 * first import, terminated when the app closes), one lock per imported URL and one queue per
 * site (the politeness of every fetch: docs/decisions.md, "Sources"), used by the API route, the
 * web form and the source refreshes alike; and the update webhook every refresh tells
 * (`UPDATE_WEBHOOK_URL`), whose posts in flight end when the app closes.
 */
export const urlImportPlugin = fp(
  async (app) => {
    const pool = new ExtractPool({ onThreadError: (error) => app.log.warn({ err: error }, 'a URL import extraction thread died; the next import starts another') });
    app.addHook('onClose', async () => pool.close());
    const webhook = app.config.updateWebhook === undefined ? undefined : new UpdateWebhook(app.config.updateWebhook, app.log, app.db);
    if (webhook !== undefined) app.addHook('onClose', async () => webhook.close());
    app.decorate('urlImports', {
      db: app.db,
      images: app.images,
      pool,
      allow: app.config.importAllowHosts,
      locks: new KeyedLock(),
      queue: new SiteQueue({ delayMs: app.config.sourceRequestDelayMs }),
      maxChapters: app.config.sourceMaxChapters,
      sourcePageTimeoutMs: app.config.sourcePageTimeoutMs,
      checkIntervalHours: app.config.sourceCheckIntervalHours,
      updates: webhook ?? SILENT_NOTIFIER,
    });
  },
  { name: 'storyshelf-url-import', fastify: '5.x', dependencies: ['storyshelf-db', 'storyshelf-images'] },
);
