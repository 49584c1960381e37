/**
 * Receiving a library archive upload (docs/decisions.md, "Library archive"): the multipart part
 * `file` is streamed into `DATA_DIR/imports/<job id>.zip` with its size counted, never held in
 * memory, and removed again when anything fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { BadRequest, invalidField, TooLarge, UnsupportedType } from '../errors.js';

/** The largest archive taken: 2 GiB, a library of ~100k stories with their covers. */
export const ARCHIVE_UPLOAD_MAX = 2 * 1024 ** 3;
export const IMPORTS_DIR = 'imports';

interface FilePart {
  type: 'file';
  fieldname: string;
  file: Readable & { truncated?: boolean };
}

/** Saves the upload's `file` part as `imports/<name>.zip`; 400 without one, 413 over `maxBytes`, 415 when not multipart. */
export async function saveArchiveUpload(request: FastifyRequest, dataDir: string, name: string, maxBytes = ARCHIVE_UPLOAD_MAX): Promise<string> {
  if (!request.isMultipart()) throw new UnsupportedType('A multipart/form-data body was expected');
  const dir = path.join(dataDir, IMPORTS_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${name}.zip`);
  let saved = false;
  let failure: unknown;
  try {
    const parts = request.parts({ limits: { fileSize: maxBytes + 1, files: 1, fields: 8, parts: 10 } }) as AsyncIterable<FilePart | { type: 'field' }>;
    for await (const part of parts) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== 'file' || saved || failure !== undefined) {
        part.file.resume();
        continue;
      }
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          callback(size > maxBytes ? tooLarge(maxBytes) : null, chunk);
        },
      });
      try {
        await pipeline(part.file, counter, fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
        if (part.file.truncated === true) throw tooLarge(maxBytes);
        saved = true;
      } catch (error) {
        failure = error;
        part.file.resume();
      }
    }
  } catch (error) {
    failure ??= (error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE' ? tooLarge(maxBytes) : error;
  }
  if (failure === undefined && !saved) failure = invalidField('file', 'is required');
  if (failure !== undefined) {
    fs.rmSync(file, { force: true });
    throw failure instanceof Error && 'statusCode' in failure ? failure : new BadRequest('The multipart body is malformed');
  }
  return file;
}

function tooLarge(maxBytes: number): TooLarge {
  return new TooLarge('The archive is too large', { file: `must be at most ${maxBytes} bytes` });
}
