import fp from 'fastify-plugin';
import { bookBuilds, type EpubDeps } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What making an EPUB needs (src/epub/service.ts): the database, the image store and this app's build queue. */
    epub: EpubDeps;
  }
}

/**
 * The EPUB export's shared parts: one queue of book builds per app, so the API's book routes and
 * the OPDS catalog's downloads wait in the same line (docs/decisions.md, "EPUB export").
 */
export const epubPlugin = fp(
  async (app) => {
    app.decorate('epub', { db: app.db, images: app.images, builds: bookBuilds() });
  },
  { name: 'storyshelf-epub', fastify: '5.x', dependencies: ['storyshelf-db', 'storyshelf-images'] },
);
