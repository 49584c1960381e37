/**
 * Reading a multipart/form-data request that carries one image: the shared front half of every
 * upload endpoint (the file endpoints, story covers, author avatars, the multipart author
 * update). The image is streamed to disk by the store as its part arrives; text fields are
 * collected. The request is always read to its end, so the client receives the answer.
 */
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { BadRequest, HttpError, invalidField, TooLarge, UnsupportedType } from '../errors.js';
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

interface MultipartFilePart {
  type: 'file';
  fieldname: string;
  filename: string;
  file: Readable & { truncated?: boolean };
}

interface MultipartFieldPart {
  type: 'field';
  fieldname: string;
  value: unknown;
  valueTruncated: boolean;
}

/**
 * Reads the whole multipart body of `request`. The part named `fileField` is saved through
 * `store.saveUploadedImage` (415, 413 as it decides); any other file part is read and dropped.
 * Not multipart: 415. A text field cut off by the parser's size limit: 413 on that field.
 * Malformed or truncated multipart: 400. On any failure after the image was saved, the image is
 * removed again, so the caller either gets a stored image or an error and nothing on disk.
 */
export async function receiveUpload(request: FastifyRequest, store: ImageStore, options: UploadOptions): Promise<ReceivedUpload> {
  if (!request.isMultipart()) throw new UnsupportedType('A multipart/form-data body was expected');
  const fields: Record<string, string[]> = options.fields ?? (Object.create(null) as Record<string, string[]>);
  let image: string | undefined;
  let failure: unknown;
  try {
    for await (const part of request.parts() as AsyncIterable<MultipartFilePart | MultipartFieldPart>) {
      if (part.type === 'file') {
        // A browser sends an empty file input as a part with no file name and no bytes: no image.
        if (failure !== undefined || part.fieldname !== options.fileField || image !== undefined || part.filename === '') {
          await drain(part.file);
          continue;
        }
        try {
          image = await store.saveUploadedImage(part, options.kind);
        } catch (error) {
          failure = error;
        }
        continue;
      }
      if (part.valueTruncated) {
        failure ??= new TooLarge('A form field is too long', { [part.fieldname]: 'is too long' });
        continue;
      }
      // A part sent as application/json arrives parsed; keep every field as text for the caller.
      (fields[part.fieldname] ??= []).push(typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
    }
  } catch (error) {
    // The parser gave up (limits, malformed or cut-off body); an earlier failure explains more.
    failure ??= error;
  }
  if (failure === undefined && image === undefined && options.required) {
    failure = invalidField(options.fileField, 'is required');
  }
  if (failure !== undefined) {
    await store.discardUpload(image);
    throw asClientError(failure);
  }
  return { image, fields };
}

/** Reads a part to its end, discarding it, so the parser moves on to the next part. */
export async function drain(stream: Readable): Promise<void> {
  for await (const _chunk of stream) {
    // discarded
  }
}

/** Busboy's own errors carry no status; a body it cannot parse is the client's 400. */
export function asClientError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  const code = (error as { code?: unknown }).code;
  if (typeof status === 'number' || typeof code === 'string') return error;
  return new BadRequest('The multipart body is malformed');
}
