/**
 * File helpers of the image store (src/images/store.ts), which alone decides the paths they are
 * given: opening an image for serving without following links, existence checks, full writes and
 * durable renames.
 */
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { FORMATS, SNIFF_BYTES, sniffImageFormat } from './formats.js';

/** An image opened for serving. Call exactly one of `stream()` or `close()`. */
export interface OpenedImage {
  readonly relPath: string;
  readonly size: number;
  readonly modified: Date;
  /** From the file's magic bytes, never its name. */
  readonly contentType: string;
  /** Strong: stored names are never reused and files never rewritten, so name+size+mtime pin the bytes. */
  readonly etag: string;
  /** The bytes; the stream owns (and closes) the file. */
  stream(): Readable;
  close(): Promise<void>;
}

/** Opened read-only, never through a symlink (where the platform has O_NOFOLLOW). */
const OPEN_NO_FOLLOW = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * Opens `file` (never through a link) when it is a regular file whose bytes start like an image;
 * `undefined` when it is missing, not a regular file, or not an image. `tag` starts the ETag.
 */
export async function openServable(file: string, relPath: string, tag: string): Promise<OpenedImage | undefined> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(file, OPEN_NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isMissing(error) || code === 'ELOOP') return undefined;
    throw error;
  }
  try {
    const stat = await handle.stat();
    const head = Buffer.alloc(SNIFF_BYTES);
    const format = stat.isFile() ? sniffImageFormat(head.subarray(0, (await handle.read(head, 0, SNIFF_BYTES, 0)).bytesRead)) : undefined;
    if (format === undefined) {
      await handle.close();
      return undefined;
    }
    const opened = handle;
    return {
      relPath,
      size: stat.size,
      modified: stat.mtime,
      contentType: FORMATS[format].contentType,
      etag: `"${tag}-${stat.size.toString(16)}-${Math.trunc(stat.mtimeMs).toString(16)}"`,
      stream: () => opened.createReadStream({ start: 0, autoClose: true }),
      close: () => opened.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Whether a directory entry exists (`asLink`: a link counts as itself, dangling or not). */
export async function exists(file: string, asLink = false): Promise<boolean> {
  try {
    await (asLink ? fsp.lstat(file) : fsp.stat(file));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/** Makes a rename durable (the directory entry reaches the disk); not supported everywhere. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fsp.open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open or fsync a directory; the rename itself is still atomic.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
