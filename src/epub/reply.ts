import type { FastifyReply } from 'fastify';
import { attachment } from '../lib/content-disposition.js';
import type { EpubFile } from './service.js';

/**
 * Sends a built book as a download, for the EPUB routes and the OPDS catalog's acquisition link
 * alike: the one place a book's headers are decided.
 */
export function sendBook(reply: FastifyReply, file: EpubFile): FastifyReply {
  return reply
    .header('content-type', 'application/epub+zip')
    .header('content-disposition', attachment(file.title, '.epub', 'book'))
    .header('cache-control', 'private, no-cache')
    .header('etag', `"${file.hash}"`)
    .send(file.bytes);
}
