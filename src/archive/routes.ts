import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { SERVER_PAGES_PER_STEP } from '../backup/snapshot.js';
import { errorResponses } from '../schemas/common.js';
import { ArchiveBytes, ArchiveRestoreAccepted } from '../schemas/archive.js';
import { exportLibrary, startArchiveRestore } from './service.js';

const ARCHIVE = ['archive'];

/**
 * The library archive (docs/api.md, "Export and restore"; docs/decisions.md, "Library archive").
 * Both routes need a login session: an archive holds the whole library, and a restore rewrites it.
 */
export const archiveRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/export',
    {
      config: { scope: 'session' },
      schema: {
        tags: ARCHIVE,
        summary: 'Download the whole library as a portable ZIP archive (docs/export-format.md)',
        response: { 200: ArchiveBytes, ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => {
      const download = await exportLibrary(app.libraryExports, app.db.$client, app.config.dataDir, app.images.root, SERVER_PAGES_PER_STEP);
      download.finished.then(
        (summary) => request.log.info({ counts: summary.counts, missingImages: summary.missingImages.length }, 'library exported'),
        (error: unknown) => request.log.warn({ err: error }, 'library export did not finish'),
      );
      const headers = {
        'content-type': 'application/zip',
        'content-disposition': `attachment; filename="${download.fileName}"`,
        'cache-control': 'no-store',
      };
      return sendStream(reply, headers, download.stream);
    },
  );

  app.post(
    '/import/archive',
    {
      config: { scope: 'session', acceptsMultipart: true },
      schema: {
        tags: ARCHIVE,
        summary: 'Restore a library archive (multipart part "file", at most 2 GiB) into this library; 202 with the job that does it (GET /api/jobs/{id})',
        consumes: ['multipart/form-data'],
        response: { 202: ArchiveRestoreAccepted, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const jobId = await startArchiveRestore(app.jobs, request, app.config.dataDir, { db: app.db, images: app.images });
      return reply.code(202).send({ message: 'The archive is being restored; follow it at /api/jobs/{jobId}', jobId });
    },
  );
};

/** A streamed body: the route's 200 schema documents it, there is nothing to serialize. */
function sendStream(reply: FastifyReply, headers: Record<string, string>, stream: Readable): FastifyReply {
  return reply.headers(headers).send(stream);
}
