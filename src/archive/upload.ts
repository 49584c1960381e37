/**
 * Receiving a library archive upload (docs/decisions.md, "Library archive") on the one multipart
 * receiver (src/lib/multipart-intake.ts): the part `file` is streamed into its job's folder
 * (`DATA_DIR/jobs/<job id>/archive.zip`) with its size counted, never held in memory, and
 * removed again when anything fails.
 */
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { TooLarge } from '../errors.js';
import { RESTORE_ARCHIVE_FILE } from '../jobs/folders.js';
import { folderDestination, receiveMultipart } from '../lib/multipart-intake.js';

/** The largest archive taken: 2 GiB, a library of ~100k stories with their covers. */
export const ARCHIVE_UPLOAD_MAX = 2 * 1024 ** 3;

/**
 * Saves the upload's `file` part as `<folder>/archive.zip` and returns its path; 400 without
 * one, 413 over `maxBytes`, 415 when not multipart; the folder is removed on failure.
 */
export async function saveArchiveUpload(request: FastifyRequest, folder: string, maxBytes = ARCHIVE_UPLOAD_MAX): Promise<string> {
  const tooLarge = () => new TooLarge('The archive is too large', { file: `must be at most ${maxBytes} bytes` });
  await receiveMultipart(request, {
    field: 'file',
    maxFiles: 1,
    required: true,
    limits: { fileSize: maxBytes + 1, files: 1, fields: 8, parts: 10 },
    tooLarge,
    destination: folderDestination(folder, {
      nameOf: () => RESTORE_ARCHIVE_FILE,
      maxFileBytes: maxBytes,
      fileTooLarge: tooLarge,
      maxTotalBytes: maxBytes,
      totalTooLarge: tooLarge,
    }),
  });
  return path.join(folder, RESTORE_ARCHIVE_FILE);
}
