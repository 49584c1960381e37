/**
 * Reading a multipart/form-data request that carries one image: the shared front half of every
 * upload endpoint (the file endpoints, story covers, author avatars, the multipart author
 * update), on the one multipart receiver (src/lib/multipart-intake.ts) with the image store as
 * its destination. The image is streamed to disk by the store as its part arrives; text fields
 * are collected.
 */
import type { FastifyRequest } from 'fastify';
import { receiveMultipart } from '../lib/multipart-intake.js';
import type { ImageKind } from './image-path.js';
import type { ImageStore } from './store.js';

export interface UploadOptions {
  /** The folder the image goes to. */
  kind: ImageKind;
  /** The part that carries the image: `file` for uploads, `avatar` in the author form. */
  fileField: string;
  /** When true (the upload endpoints), a request without that part is 400 `details[fileField]`. */
  required: boolean;
  /**
   * Where the text fields are collected (a fresh record when absent). A page form passes its own
   * so that it still has what was typed when the upload fails, and can show the form again.
   */
  fields?: Record<string, string[]>;
}

export interface ReceivedUpload {
  /** `<kind>/<uuid>.<ext>` of the stored image, or `undefined` when none was sent. */
  image: string | undefined;
  /** Text fields in arrival order per name (a repeated `urls` part gives several values). */
  fields: Record<string, string[]>;
}

/**
 * Reads the whole multipart body of `request` with the app's parser limits. The part named
 * `fileField` is saved through `store.saveUploadedImage` (415, 413 as it decides); any other file
 * part is read and dropped. Not multipart: 415. A text field cut off by the parser's size limit:
 * 413 on that field. Malformed or truncated multipart: 400. On any failure after the image was
 * saved, the image is removed again, so the caller either gets a stored image or an error and
 * nothing on disk.
 */
export async function receiveUpload(request: FastifyRequest, store: ImageStore, options: UploadOptions): Promise<ReceivedUpload> {
  const fields: Record<string, string[]> = options.fields ?? (Object.create(null) as Record<string, string[]>);
  const [image] = await receiveMultipart(request, {
    field: options.fileField,
    maxFiles: 1,
    required: options.required,
    fields,
    destination: {
      save: (part) => store.saveUploadedImage(part, options.kind),
      discard: async (saved) => {
        for (const relPath of saved) await store.discardUpload(relPath);
      },
    },
  });
  return { image, fields };
}
