/**
 * Receiving the files of `POST /api/import/files` (docs/decisions.md, "File import"): every
 * `file` part is streamed into the job's folder as it arrives, under a name of our own
 * (`<n>.<extension>`; the sender's name is kept only for display). Bounded: at most
 * {@link UPLOAD_FILES_MAX} files, each at most {@link BOOK_FILE_MAX} bytes, all together at most
 * {@link UPLOAD_BYTES_MAX}. A file of a format the importer does not read, a file over a limit,
 * or no file at all refuses the whole request, and what was written is removed.
 */
import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { invalidField, TooLarge, UnsupportedType } from '../errors.js';
import { asClientError, drain } from '../images/upload.js';
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

interface FilePart {
  type: 'file';
  fieldname: string;
  filename: string;
  file: Readable & { truncated?: boolean };
}

interface FieldPart {
  type: 'field';
}

/** Counts the bytes of the whole request's files and stops past the total limit. */
function totalCounter(counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted.bytes += chunk.length;
      if (counted.bytes > UPLOAD_BYTES_MAX) callback(new TooLarge(`The files together are over ${UPLOAD_BYTES_MAX} bytes`));
      else callback(null, chunk);
    },
  });
}

function displayName(filename: string): string {
  return [...path.basename(filename.replace(/\\/g, '/'))].slice(0, DISPLAY_NAME_MAX).join('');
}

/** Writes every `file` part of the request into `folder` (created here); removes it again on any failure. */
export async function receiveImportFiles(request: FastifyRequest, folder: string): Promise<ImportFile[]> {
  if (!request.isMultipart()) throw new UnsupportedType('A multipart/form-data body was expected');
  await fs.mkdir(folder, { recursive: true });
  const files: ImportFile[] = [];
  const counted = { bytes: 0 };
  let failure: unknown;
  try {
    for await (const part of request.parts({ limits: IMPORT_MULTIPART_LIMITS }) as AsyncIterable<FilePart | FieldPart>) {
      if (part.type !== 'file') continue;
      // A browser sends an empty file input as a part with no file name.
      if (failure !== undefined || part.fieldname !== 'file' || part.filename === '') {
        await drain(part.file);
        continue;
      }
      const name = displayName(part.filename);
      const format = formatOf(name);
      if (format === undefined) {
        failure = new UnsupportedType(`${name} is not a file the importer reads`, { file: 'must be .html, .htm, .txt, .md, .epub or .zip' });
        await drain(part.file);
        continue;
      }
      const stored = `${files.length + 1}${path.extname(name).toLowerCase()}`;
      try {
        await pipeline(part.file, totalCounter(counted), createWriteStream(path.join(folder, stored), { flags: 'wx' }));
        if (part.file.truncated === true) throw new TooLarge(`${name} is over ${BOOK_FILE_MAX} bytes`, { file: `at most ${BOOK_FILE_MAX} bytes each` });
        files.push({ name, path: stored });
      } catch (error) {
        failure = error;
        await drain(part.file);
      }
    }
  } catch (error) {
    failure ??= error;
  }
  if (failure === undefined && files.length === 0) failure = invalidField('file', 'is required');
  if (failure !== undefined) {
    await fs.rm(folder, { recursive: true, force: true });
    throw asClientError(failure);
  }
  return files;
}
