/** Starting imports (docs/api.md, "Importing files"): the upload is received, then queued as a job. */
import fs from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import type { JobRunner } from '../jobs/runner.js';
import { newId } from '../lib/clock.js';
import { IMPORT_FILES_KIND, uploadFolder, type ImportParams } from './job.js';
import { receiveImportFiles } from './upload.js';

/**
 * Receives the request's files into `DATA_DIR/jobs/<id>/` and queues the `import-files` job.
 * A full queue is 429 before the body is read; nothing stays on disk when the request fails.
 */
export async function startUploadImport(jobs: JobRunner, dataDir: string, request: FastifyRequest): Promise<string> {
  jobs.checkQueueRoom();
  const id = newId();
  const folder = uploadFolder(dataDir, id);
  const files = await receiveImportFiles(request, folder);
  try {
    const params: ImportParams = { files };
    return jobs.enqueue(IMPORT_FILES_KIND, params, { id, total: files.length });
  } catch (error) {
    await fs.rm(folder, { recursive: true, force: true });
    throw error;
  }
}
