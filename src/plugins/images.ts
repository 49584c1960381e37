import fastifyMultipart from '@fastify/multipart';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { UnsupportedType } from '../errors.js';
import { sweepUnreferencedImages } from '../images/image-changes.js';
import { ImageStore, imagesFolderOf, MAX_IMAGE_BYTES, TRASH_RETENTION_MS } from '../images/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The image store: the only code that touches `DATA_DIR/images`. */
    images: ImageStore;
  }
  interface FastifyContextConfig {
    /** Set on a route that reads multipart/form-data; every other route answers it with 415. */
    acceptsMultipart?: boolean;
  }
}

export interface ImagesPluginOptions {
  dataDir: string;
}

/**
 * Parser limits for every multipart request. The file limit is one byte over the image limit
 * so an over-size file is told apart from one of exactly 5 MiB (the store counts and answers
 * 413); bytes past it are discarded by the parser, never buffered. One file per request; the
 * field limits fit the multipart author form (name, notes up to 10,000 characters, up to 100
 * repeated `urls`, authorRating) with room to spare, and bound what text fields can hold.
 */
export const MULTIPART_LIMITS = Object.freeze({
  fileSize: MAX_IMAGE_BYTES + 1,
  files: 1,
  fields: 128,
  fieldSize: 64 * 1024,
  fieldNameSize: 100,
  parts: 130,
  headerPairs: 100,
});

/** How often expired trash is purged while the service runs (it is also purged at startup). */
export const TRASH_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Opens the image store on `DATA_DIR/images` (creating its folders, sweeping stale uploads,
 * purging expired trash), purges the trash again every {@link TRASH_PURGE_INTERVAL_MS} (a timer
 * that never keeps the process alive and stops on close), sweeps the images that nothing names
 * (what an interrupted change leaves) into the trash before the first request, registers
 * @fastify/multipart with the limits above, and makes multipart a per-route opt-in: a multipart
 * body sent to a route without `config.acceptsMultipart` is 415, as for any other content type
 * the route does not take (docs/decisions.md, "Requests").
 */
export const imagesPlugin = fp<ImagesPluginOptions>(
  async (app, { dataDir }) => {
    const store = await ImageStore.open(imagesFolderOf(dataDir), app.log);
    const purge = setInterval(() => {
      store.purgeTrash(TRASH_RETENTION_MS).catch((error: unknown) => app.log.warn({ err: error }, 'could not purge the image trash'));
    }, TRASH_PURGE_INTERVAL_MS);
    purge.unref();
    app.addHook('onClose', async () => clearInterval(purge));
    // Once every migration and plugin is in place, before the first request.
    app.addHook('onReady', async () => sweepUnreferencedImages(app.db, store, app.log));
    await app.register(fastifyMultipart, { limits: { ...MULTIPART_LIMITS }, throwFileSizeLimit: true });
    app.addHook('preValidation', async (request: FastifyRequest) => {
      if (request.isMultipart() && !request.is404 && request.routeOptions.config.acceptsMultipart !== true) {
        throw new UnsupportedType('This endpoint does not take multipart/form-data');
      }
    });
    app.decorate('images', store);
  },
  { name: 'storyshelf-images', fastify: '5.x', dependencies: ['storyshelf-db'] },
);
