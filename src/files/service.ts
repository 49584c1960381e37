/**
 * The file endpoints (docs/api.md, "Images — /api/files") on top of the image store: upload, serve
 * (with validators for conditional GETs) and delete (database first, then the disk).
 */
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import { NotFound } from '../errors.js';
import { imageUrl, parseImagePath, type ImageKind } from '../images/image-path.js';
import { clearImageReferences } from '../images/references.js';
import type { ImageStore } from '../images/store.js';
import { receiveUpload } from '../images/upload.js';
import type { ThumbnailFormat, ThumbnailWidth, UploadResponse } from '../schemas/files.js';

/** docs/api.md, "Limits": images are cached for a year. Names are never reused, so this is safe. */
export const IMAGE_CACHE_CONTROL = 'max-age=31536000';

/**
 * Defence in depth for user-supplied bytes opened as a page of their own: no script, no
 * plugin, no same-origin access, whatever a browser might make of them. `<img>` is unaffected.
 */
export const IMAGE_CSP = "default-src 'none'; sandbox";

const UPLOADED: Record<ImageKind, string> = {
  covers: 'Cover uploaded successfully',
  avatars: 'Avatar uploaded successfully',
  inline: 'Image uploaded successfully',
};

/**
 * `POST /api/files/upload/cover|avatar`: stores the `file` part under `kind` and answers
 * `{message, path, url}`. Attaching it to a story or author is a separate call (docs/decisions.md,
 * "Images": `coverPath` / `avatarImagePath`); until then it is marked as waiting, so the startup
 * sweep of unreferenced images keeps it.
 */
export async function uploadImage(request: FastifyRequest, store: ImageStore, kind: ImageKind): Promise<UploadResponse> {
  const { image } = await receiveUpload(request, store, { kind, fileField: 'file', required: true });
  const path = image as string;
  try {
    await store.markUnattached(path);
  } catch (error) {
    await store.discardUpload(path);
    throw error;
  }
  return { message: UPLOADED[kind], path, url: imageUrl(path) };
}

export interface ConditionalHeaders {
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
}

/** What the GET route sends: the headers, and the bytes unless the client's copy is current. */
export interface ImageReply {
  status: 200 | 304;
  headers: Record<string, string>;
  body: Readable | undefined;
}

/**
 * `GET /api/files/images/<path>`: the guards (400), 404 for no such image, then 304 when the
 * client's validators match (If-None-Match wins over If-Modified-Since, RFC 9110 13.2.2), else
 * the stream with its real Content-Type, length, ETag and a year of caching. With a `width`, the
 * same for the image's thumbnail of that width in `format` (WebP unless asked) (made now if missing; docs/decisions.md,
 * "Thumbnails and image metadata").
 */
export async function imageReply(store: ImageStore, rawPath: unknown, width: ThumbnailWidth | undefined, conditions: ConditionalHeaders, format: ThumbnailFormat = 'webp'): Promise<ImageReply> {
  const image = width === undefined ? await store.openImage(rawPath) : await store.openThumbnail(rawPath, width, format);
  const lastModified = image.modified.toUTCString();
  const validators = { ETag: image.etag, 'Last-Modified': lastModified, 'Cache-Control': IMAGE_CACHE_CONTROL };
  if (notModified(image.etag, image.modified, conditions)) {
    await image.close();
    return { status: 304, headers: validators, body: undefined };
  }
  return {
    status: 200,
    headers: {
      ...validators,
      'Content-Type': image.contentType,
      'Content-Length': String(image.size),
      'Content-Security-Policy': IMAGE_CSP,
    },
    body: image.stream(),
  };
}

function notModified(etag: string, modified: Date, conditions: ConditionalHeaders): boolean {
  if (conditions.ifNoneMatch !== undefined) {
    // Weak comparison, as If-None-Match asks: W/"x" matches "x".
    const tags = conditions.ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    return tags.includes('*') || tags.includes(etag);
  }
  if (conditions.ifModifiedSince !== undefined) {
    const since = Date.parse(conditions.ifModifiedSince);
    return !Number.isNaN(since) && Math.floor(modified.getTime() / 1000) * 1000 <= since;
  }
  return false;
}

/**
 * `DELETE /api/files/images?path=`: clears every `coverPath` / `avatarImagePath` naming the
 * file in one write transaction, then removes the file (into the trash), so the database never
 * points at a file that is gone (a crash in between leaves an unreferenced file, which is
 * harmless). 404 when there was neither a file nor a reference; a dangling reference alone is
 * cleared and is 200. The path is held throughout, so a concurrent attach of the same file
 * either commits first (and is cleared here) or finds the file gone (400).
 */
export async function deleteImage(db: Db, store: ImageStore, rawPath: unknown): Promise<void> {
  const { relPath } = parseImagePath(rawPath);
  await store.exclusively(relPath, async () => {
    const { exists } = await store.locateImage(relPath);
    const cleared = writeTransaction(db, (tx) => clearImageReferences(tx, relPath));
    const removed = exists && (await store.removeImage(relPath));
    if (!removed && cleared === 0) throw new NotFound(`Image not found: ${relPath}`);
  });
}
