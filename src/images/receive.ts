/**
 * Receiving the bytes of one image into a temp file (docs/decisions.md, "Images › Accepting and
 * storing"), for the image store (src/images/store.ts), which alone decides where the temp file
 * is and where it goes next: an upload's part, or an image of a library archive.
 */
import fsp, { type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { TooLarge, UnsupportedType } from '../errors.js';
import type { WarnLog } from '../lib/warn-log.js';
import type { ImageFormat } from './formats.js';
import { writeAll } from './files.js';
import { ImageStructureCheck, InvalidImage } from './structure.js';

/** docs/decisions.md, "Images": 5 MB means 5 MiB; exactly this many bytes is accepted, one more is 413. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** docs/decisions.md, "Images": the 415 of every upload, naming the part. */
export function notAnImage(field: string): UnsupportedType {
  return new UnsupportedType('The file is not a JPEG, PNG or WebP image', { [field]: 'must be a JPEG, PNG or WebP image' });
}

/** docs/decisions.md, "Images": the 413 of every upload, naming the part. */
export function imageTooLarge(field: string): TooLarge {
  return new TooLarge('The image is larger than 5 MiB', { [field]: `must be at most 5 MiB (${MAX_IMAGE_BYTES} bytes)` });
}

/**
 * Streams an image into `tempPath` while its size (413 over {@link MAX_IMAGE_BYTES}) and
 * structure (415) are checked, and fsyncs it. The stream is always read to its end (what follows
 * a failure is discarded), so an uploading client gets the error rather than a reset connection.
 * Throws with nothing left on disk, or returns the complete temp file and its format.
 */
export async function receiveImage(
  stream: Readable & { truncated?: boolean },
  tempPath: string,
  field: string,
  log: WarnLog,
): Promise<{ tempPath: string; format: ImageFormat }> {
  const check = new ImageStructureCheck();
  let handle: FileHandle | undefined;
  let sniffing: Buffer[] = [];
  let size = 0;
  let failure: Error | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (failure !== undefined) continue;
      try {
        size += chunk.length;
        if (size > MAX_IMAGE_BYTES) throw imageTooLarge(field);
        check.push(chunk);
        if (check.format === undefined) {
          sniffing.push(chunk); // fewer than 12 bytes so far: not yet known to be an image
          continue;
        }
        handle ??= await fsp.open(tempPath, 'wx', 0o644);
        for (const early of sniffing) await writeAll(handle, early);
        sniffing = [];
        await writeAll(handle, chunk);
      } catch (error) {
        failure = error as Error;
      }
    }
    if (failure === undefined && stream.truncated === true) failure = imageTooLarge(field);
    let format: ImageFormat | undefined;
    if (failure === undefined) {
      try {
        format = check.end();
      } catch (error) {
        failure = error as Error;
      }
    }
    if (failure instanceof InvalidImage) throw notAnImage(field);
    if (failure !== undefined || format === undefined) throw failure;

    handle ??= await fsp.open(tempPath, 'wx', 0o644);
    for (const early of sniffing) await writeAll(handle, early);
    await handle.sync();
    await handle.close();
    handle = undefined;
    return { tempPath, format };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fsp.rm(tempPath, { force: true }).catch((cause: unknown) => log.warn({ err: cause, tempPath }, 'could not remove a failed upload'));
    throw error;
  }
}
