/**
 * Receiving the files of `POST /api/import/files` (docs/decisions.md, "File import") on the one
 * multipart receiver (src/lib/multipart-intake.ts): every `file` part is streamed into the job's
 * folder as it arrives, under a name of our own (`<n>.<extension>`; the sender's name is kept
 * only for display). Bounded: at most {@link UPLOAD_FILES_MAX} files, each at most
 * {@link BOOK_FILE_MAX} bytes, all together at most {@link UPLOAD_BYTES_MAX}. A file of a format
 * the importer does not read, a file over a limit, or no file at all refuses the whole request,
 * and what was written is removed.
 */
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { TooLarge, UnsupportedType } from '../errors.js';
import { folderDestination, receiveMultipart } from '../lib/multipart-intake.js';
import type { ImportFile } from './job.js';
import { BOOK_FILE_MAX, formatOf } from './formats.js';

export const UPLOAD_FILES_MAX = 100;
export const UPLOAD_BYTES_MAX = 512 * 1024 * 1024;
/** The longest file name kept for display. */
const DISPLAY_NAME_MAX = 255;

/** This route's multipart limits, merged over the app's (src/plugins/images.ts) for this request only. */
export const IMPORT_MULTIPART_LIMITS = Object.freeze({
  // One byte over, so a file of exactly the limit is told apart from a larger one.
  fileSize: BOOK_FILE_MAX + 1,
  files: UPLOAD_FILES_MAX,
  fields: 16,
  fieldSize: 1024,
  parts: UPLOAD_FILES_MAX + 16,
});

function displayName(filename: string): string {
  return [...path.basename(filename.replace(/\\/g, '/'))].slice(0, DISPLAY_NAME_MAX).join('');
}

/** Writes every `file` part of the request into `folder` (created here); removes it again on any failure. */
export async function receiveImportFiles(request: FastifyRequest, folder: string): Promise<ImportFile[]> {
  const stored = await receiveMultipart(request, {
    field: 'file',
    maxFiles: UPLOAD_FILES_MAX,
    required: true,
    limits: IMPORT_MULTIPART_LIMITS,
    refuseType: (filename) =>
      formatOf(displayName(filename)) === undefined
        ? new UnsupportedType(`${displayName(filename)} is not a file the importer reads`, { file: 'must be .html, .htm, .txt, .md, .epub or .zip' })
        : undefined,
    destination: folderDestination(folder, {
      nameOf: (filename, index) => `${index + 1}${path.extname(displayName(filename)).toLowerCase()}`,
      maxFileBytes: BOOK_FILE_MAX,
      fileTooLarge: (filename) => new TooLarge(`${displayName(filename)} is over ${BOOK_FILE_MAX} bytes`, { file: `at most ${BOOK_FILE_MAX} bytes each` }),
      maxTotalBytes: UPLOAD_BYTES_MAX,
      totalTooLarge: () => new TooLarge(`The files together are over ${UPLOAD_BYTES_MAX} bytes`),
    }),
  });
  return stored.map((file) => ({ name: displayName(file.filename), path: file.name }));
}
