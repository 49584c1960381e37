/**
 * Story covers (`POST/DELETE /api/stories/{id}/cover`, docs/decisions.md, "Images"): the
 * upload is checked and stored by the image store, the row changes in one write, and the old
 * file is released after the commit (src/images/image-changes.ts), so the row never names a file
 * that is not there.
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/open.js';
import { stories } from '../db/schema.js';
import { setImageColumn, type ImageColumn } from '../images/image-changes.js';
import { imageUrl } from '../images/image-path.js';
import type { ImageStore } from '../images/store.js';
import { receiveUpload } from '../images/upload.js';
import type { MessageBody } from '../schemas/common.js';
import type { CoverResponse } from '../schemas/story.js';
import * as repo from './repository.js';
import { storyNotFound } from './service.js';

const COVER: ImageColumn = { table: stories, column: stories.coverPath, notFound: storyNotFound };

/**
 * `POST /api/stories/{id}/cover`: the image in the multipart part `file` becomes the story's
 * cover. An unknown story is 404 before a byte of the upload is read; 415/413/400 as the store
 * decides. The previous cover goes to the trash unless something else still names it. Of
 * concurrent uploads to one story every one succeeds, the last to commit wins, and only its
 * file remains.
 */
export async function uploadCover(db: Db, store: ImageStore, request: FastifyRequest, id: string): Promise<CoverResponse> {
  if (repo.findStoryStamp(db, id) === undefined) throw storyNotFound(id);
  const { image } = await receiveUpload(request, store, { kind: 'covers', fileField: 'file', required: true });
  const coverPath = image as string;
  await setImageColumn(db, store, COVER, id, coverPath);
  return { message: 'Cover uploaded successfully', coverPath, coverUrl: imageUrl(coverPath) };
}

/**
 * `DELETE /api/stories/{id}/cover`: clears the cover and releases its file. A story without a
 * cover is a 200 that changes nothing (docs/decisions.md, "Images": the outcome asked for already
 * holds, so a repeated DELETE is harmless); an unknown story is 404.
 */
export async function removeCover(db: Db, store: ImageStore, id: string): Promise<MessageBody> {
  const removed = await setImageColumn(db, store, COVER, id, null);
  return { message: removed ? 'Cover removed successfully' : 'The story has no cover' };
}
