import type { FastifyReply } from 'fastify';
import type { ImageStore } from '../images/store.js';
import type { ThumbnailFormat, ThumbnailWidth } from '../schemas/files.js';
import { imageReply } from './service.js';

/**
 * Sends the image {@link imageReply} decided on; the headers only once nothing can fail any more.
 * For every route that serves stored images (`/api/files/images`, the OPDS covers): the service
 * decides what to send, this adapter alone talks to the reply.
 */
export async function sendImage(
  reply: FastifyReply,
  store: ImageStore,
  rawPath: unknown,
  /** The request's `w` and `format` (a thumbnail instead of the original when `w` is given). */
  thumbnail: { w?: ThumbnailWidth; format?: ThumbnailFormat },
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
): Promise<FastifyReply> {
  const conditions = { ifNoneMatch: headers['if-none-match'], ifModifiedSince: headers['if-modified-since'] };
  const image = await imageReply(store, rawPath, thumbnail.w, conditions, thumbnail.format);
  return reply.code(image.status).headers(image.headers).send(image.body);
}
