/**
 * The multipart form of `PUT /api/authors/{id}` (docs/api.md, "Authors — /api/authors"): parts
 * `name`, `notes`, `urls` (repeated, one per URL, in order), `authorRating` and `avatar` (the
 * image). It is turned into the same patch the JSON form gives and goes through the same
 * `updateAuthor`, so both forms share every rule and error shape; only the rating is named
 * `authorRating` in `details`.
 *
 * A form cannot send `null`, so (docs/decisions.md, "Images"): an empty `notes` or `authorRating`
 * clears it, and a single empty `urls` part removes every URL. An absent part leaves its field
 * as it is; unknown parts are ignored, as unknown JSON fields are.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/open.js';
import type { ErrorDetails } from '../errors.js';
import type { ImageStore } from '../images/store.js';
import { receiveUpload } from '../images/upload.js';
import type { AuthorDto } from '../schemas/author.js';
import { ILL_FORMED_TEXT, isWellFormedText } from '../validation.js';
import * as repo from './repository.js';
import { authorNotFound, RATING_RULE, updateAuthor, type AuthorPatch } from './service.js';

/** The part that carries the image in this form (docs/decisions.md, "Images"). */
export const AVATAR_PART = 'avatar';
/** The form's name for the rating, used in `details` (docs/decisions.md, "Shapes and values"). */
export const FORM_RATING_FIELD = 'authorRating';

/**
 * The form's parts as the OpenAPI document shows them (the route's `multipartForm`); the parts
 * are read and checked by {@link updateAuthorFromForm}, not by this schema. Typed as a plain
 * `TSchema`: the route's config needs no more, and its inferred type is too deep for the route's
 * type provider.
 */
export const AuthorUpdateForm: TSchema = Type.Object({
  name: Type.Optional(Type.String()),
  notes: Type.Optional(Type.String({ description: 'Empty clears it' })),
  urls: Type.Optional(Type.Array(Type.String(), { description: 'One part per URL, in order; a single empty part removes every URL' })),
  [FORM_RATING_FIELD]: Type.Optional(Type.String({ description: '1 to 5; empty clears it' })),
  [AVATAR_PART]: Type.Optional(Type.String({ format: 'binary' })),
});

/**
 * Reads the form and applies it. An unknown author is 404 before a byte of the body is read;
 * a bad image is 415/413 (details keyed `avatar`); invalid fields 400 as in the JSON form; a
 * name taken by another author 409. On any failure the uploaded avatar is removed again and the
 * row is unchanged; on success the previous avatar goes to the trash unless still referenced.
 */
export async function updateAuthorFromForm(db: Db, store: ImageStore, request: FastifyRequest, id: string): Promise<AuthorDto> {
  if (repo.findAuthorById(db, id) === undefined) throw authorNotFound(id);
  const { image, fields } = await receiveUpload(request, store, { kind: 'avatars', fileField: AVATAR_PART, required: false });
  const issues: ErrorDetails = {};
  const patch = formPatch(fields, issues);
  // The form's own offences and `updateAuthor`'s are one 400; it discards the upload on failure.
  return updateAuthor(db, store, id, patch, { ratingField: FORM_RATING_FIELD, uploadedAvatar: image, issues });
}

/**
 * The patch a form's text fields describe. A single-valued field sent more than once, a rating
 * that is not integer text, or text holding a lone UTF-16 surrogate (as JSON text, docs/decisions.md,
 * "Validation") is noted in `details` and left out of the patch; range, length and blank checks
 * are `updateAuthor`'s, as for JSON.
 */
export function formPatch(fields: Readonly<Record<string, string[]>>, details: ErrorDetails): AuthorPatch {
  const values = (field: string): string[] | undefined => {
    const given = fields[field];
    if (given === undefined || given.every(isWellFormedText)) return given;
    details[field] = ILL_FORMED_TEXT;
    return undefined;
  };
  const single = (field: string): string | undefined => {
    const given = values(field);
    if (given === undefined || given.length === 1) return given?.[0];
    details[field] = 'must be given once';
    return undefined;
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
  const urls = values('urls');
  if (urls !== undefined) patch.urls = urls.length === 1 && urls[0] === '' ? [] : urls;
  return patch;
}
