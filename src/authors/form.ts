/**
 * The multipart form of `PUT /api/authors/{id}` (spec 4.3): parts `name`, `notes`, `urls`
 * (repeated, one per URL, in order), `authorRating` and `avatar` (the image). It is turned into
 * the same patch the JSON form gives and goes through the same `updateAuthor`, so both forms
 * share every rule and error shape; only the rating is named `authorRating` in `details`.
 *
 * A form cannot send `null`, so (docs/decisions.md "Images"): an empty `notes` or `authorRating`
 * clears it, and a single empty `urls` part removes every URL. An absent part leaves its field
 * as it is; unknown parts are ignored, as unknown JSON fields are.
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/open.js';
import { BadRequest, type ErrorDetails } from '../errors.js';
import type { ImageStore } from '../images/store.js';
import { receiveUpload } from '../images/upload.js';
import type { AuthorDto } from '../schemas/author.js';
import * as repo from './repository.js';
import { authorNotFound, RATING_RULE, updateAuthor, type AuthorPatch } from './service.js';

/** The part that carries the image in this form (decisions.md "Images"). */
export const AVATAR_PART = 'avatar';
/** The form's name for the rating, used in `details` (decisions.md "Shapes and values"). */
export const FORM_RATING_FIELD = 'authorRating';

/**
 * Reads the form and applies it. An unknown author is 404 before a byte of the body is read;
 * a bad image is 415/413 (details keyed `avatar`); invalid fields 400 as in the JSON form; a
 * name taken by another author 409. On any failure the uploaded avatar is removed again and the
 * row is unchanged; on success the previous avatar goes to the trash unless still referenced.
 */
export async function updateAuthorFromForm(db: Db, store: ImageStore, request: FastifyRequest, id: string): Promise<AuthorDto> {
  if (repo.findAuthorById(db, id) === undefined) throw authorNotFound(id);
  const { image, fields } = await receiveUpload(request, store, { kind: 'avatars', fileField: AVATAR_PART, required: false });
  let patch: AuthorPatch;
  try {
    patch = formPatch(fields);
  } catch (error) {
    await store.discardUpload(image);
    throw error;
  }
  return updateAuthor(db, store, id, patch, { ratingField: FORM_RATING_FIELD, uploadedAvatar: image });
}

/**
 * The patch a form's text fields describe. A single-valued field sent more than once, or a
 * rating that is not integer text, is a 400 naming each such field; range, length and blank
 * checks are `updateAuthor`'s, as for JSON.
 */
export function formPatch(fields: Readonly<Record<string, string[]>>): AuthorPatch {
  const details: ErrorDetails = {};
  const single = (field: string): string | undefined => {
    const values = fields[field];
    if (values === undefined) return undefined;
    if (values.length > 1) details[field] = 'must be given once';
    return values[0];
  };
  const patch: AuthorPatch = {};
  const name = single('name');
  if (name !== undefined) patch.name = name;
  const notes = single('notes');
  if (notes !== undefined) patch.notes = notes === '' ? null : notes;
  const rating = single(FORM_RATING_FIELD)?.trim();
  if (rating !== undefined) {
    if (rating === '') patch.rating = null;
    else if (/^[+-]?\d{1,15}$/.test(rating)) patch.rating = Number(rating);
    else details[FORM_RATING_FIELD] = RATING_RULE;
  }
  const urls = fields.urls;
  if (urls !== undefined) patch.urls = urls.length === 1 && urls[0] === '' ? [] : urls;
  if (Object.keys(details).length > 0) throw new BadRequest('Validation failed', details);
  return patch;
}
