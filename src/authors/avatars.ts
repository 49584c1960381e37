/**
 * Author avatars (`POST/DELETE /api/authors/{id}/avatar`, docs/decisions.md, "Images"): the
 * upload is checked and stored by the image store, the row changes in one write, and the old
 * file is released after the commit (src/images/image-changes.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/open.js';
import { authors } from '../db/schema.js';
import { setImageColumn, type ImageColumn } from '../images/image-changes.js';
import { imageUrl } from '../images/image-path.js';
import type { ImageStore } from '../images/store.js';
import { receiveUpload } from '../images/upload.js';
import type { AvatarResponse } from '../schemas/author.js';
import type { MessageBody } from '../schemas/common.js';
import * as repo from './repository.js';
import { authorNotFound } from './service.js';

const AVATAR: ImageColumn = { table: authors, column: authors.avatarImagePath, notFound: authorNotFound };

/**
 * `POST /api/authors/{id}/avatar`: the image in the multipart part `file` becomes the author's
 * avatar. An unknown author is 404 before a byte of the upload is read; 415/413/400 as the store
 * decides. The previous avatar goes to the trash unless something else still names it; of
 * concurrent uploads every one succeeds and the last to commit wins.
 */
export async function uploadAvatar(db: Db, store: ImageStore, request: FastifyRequest, id: string): Promise<AvatarResponse> {
  if (repo.findAuthorById(db, id) === undefined) throw authorNotFound(id);
  const { image } = await receiveUpload(request, store, { kind: 'avatars', fileField: 'file', required: true });
  const avatarPath = image as string;
  await setImageColumn(db, store, AVATAR, id, avatarPath);
  return { message: 'Avatar uploaded successfully', avatarPath, avatarUrl: imageUrl(avatarPath) };
}

/**
 * `DELETE /api/authors/{id}/avatar`: clears the avatar and releases its file. An author without
 * an avatar is a 200 that changes nothing, as for story covers; an unknown author is 404.
 */
export async function removeAvatar(db: Db, store: ImageStore, id: string): Promise<MessageBody> {
  const removed = await setImageColumn(db, store, AVATAR, id, null);
  return { message: removed ? 'Avatar removed successfully' : 'The author has no avatar' };
}
