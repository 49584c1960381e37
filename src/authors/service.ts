import type { Db, DbOrTx } from '../db/open.js';
import type { AuthorRow } from '../db/schema.js';
import { writeTransaction } from '../db/transaction.js';
import { Conflict, HTTP_URL_RULE, invalidField, NotFound, type ErrorDetails } from '../errors.js';
import { commitImageChange, type AttachedImage } from '../images/image-changes.js';
import { parseImagePathOf } from '../images/image-path.js';
import type { ImageStore } from '../images/store.js';
import { cleanName, nameKey } from '../lib/names.js';
import { pageWindow, sortDirection, toPage, type PageOf } from '../lib/pagination.js';
import { collect, isHttpUrl, throwIfInvalid } from '../validation.js';
import {
  AUTHOR_NAME_MAX,
  AUTHOR_NOTES_MAX,
  AUTHOR_URL_MAX,
  AUTHOR_URLS_MAX,
  type AuthorCreateBody,
  type AuthorDto,
  type AuthorListQuery,
  type AuthorSearchQuery,
} from '../schemas/author.js';
import { presentAuthor } from './present.js';
import * as repo from './repository.js';

/*
 * The rules below are checked here as well as in the JSON schemas, because the multipart form
 * of PUT (docs/api.md, "Authors — /api/authors") reaches `updateAuthor` without a JSON schema in
 * front of it.
 */

export function authorNotFound(id: string): NotFound {
  return new NotFound(`Author not found with id: ${id}`);
}

function nameConflict(name: string): Conflict {
  return new Conflict(`An author named "${name}" already exists`, { name: 'is already used by another author' });
}

/** Length in code points, as JSON Schema's `maxLength` counts (docs/decisions.md, "Shapes and values"). */
function codePoints(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

/** A name as stored: trimmed and NFC; blank or too long is a 400 on `field`. */
export function cleanAuthorName(raw: string, field = 'name'): string {
  const name = cleanName(raw);
  if (name === '') throw invalidField(field, 'must not be blank');
  if (codePoints(name) > AUTHOR_NAME_MAX) throw invalidField(field, `must be at most ${AUTHOR_NAME_MAX} characters long`);
  return name;
}

function checkNotes(notes: string | null, field = 'notes'): string | null {
  if (notes !== null && codePoints(notes) > AUTHOR_NOTES_MAX) {
    throw invalidField(field, `must be at most ${AUTHOR_NOTES_MAX} characters long`);
  }
  return notes;
}

/** One URL as stored: trimmed, non-blank, at most 2048 characters. */
export function cleanAuthorUrl(raw: string, field = 'url', where = ''): string {
  const url = raw.trim();
  if (url === '') throw invalidField(field, `${where}must not be blank`);
  if (codePoints(url) > AUTHOR_URL_MAX) throw invalidField(field, `${where}must be at most ${AUTHOR_URL_MAX} characters long`);
  return url;
}

/** A URL to store: cleaned as above, and http(s) only; removing a URL stored earlier takes any text. */
export function cleanNewAuthorUrl(raw: string, field = 'url', where = ''): string {
  const url = cleanAuthorUrl(raw, field, where);
  if (!isHttpUrl(url)) throw invalidField(field, `${where}${HTTP_URL_RULE}`);
  return url;
}

/** A URL list as stored: each URL cleaned, repeats dropped (first kept), at most 100. */
export function cleanAuthorUrls(raw: readonly string[], field = 'urls'): string[] {
  const urls = [...new Set(raw.map((url) => cleanNewAuthorUrl(url, field, 'an item ')))];
  if (urls.length > AUTHOR_URLS_MAX) throw invalidField(field, `must have at most ${AUTHOR_URLS_MAX} items`);
  return urls;
}

/** The message of every rejected author rating, JSON (`rating`) or multipart (`authorRating`). */
export const RATING_RULE = 'must be an integer from 1 to 5';

function checkRating(rating: number | null, field: string): number | null {
  if (rating !== null && !(Number.isInteger(rating) && rating >= 1 && rating <= 5)) {
    throw invalidField(field, RATING_RULE);
  }
  return rating;
}

/** The author with its URLs, as the API shows it. */
function present(db: DbOrTx, row: AuthorRow): AuthorDto {
  return presentAuthor(row, repo.findAuthorUrls(db, [row.id]).get(row.id) ?? []);
}

/** A page of authors with their URLs, fetched in one query for the whole page. */
function presentAll(db: DbOrTx, rows: readonly AuthorRow[]): AuthorDto[] {
  const urls = repo.findAuthorUrls(db, rows.map((row) => row.id));
  return rows.map((row) => presentAuthor(row, urls.get(row.id) ?? []));
}

function existing(db: DbOrTx, id: string): AuthorRow {
  const row = repo.findAuthorById(db, id);
  if (row === undefined) throw authorNotFound(id);
  return row;
}

/** GET /api/authors/{id}. */
export function getAuthor(db: Db, id: string): AuthorDto {
  return present(db, existing(db, id));
}

/**
 * GET /api/authors and /api/authors/search: default `name` ascending, other keys descending
 * unless `sortDir` says otherwise; the search filters by a case-insensitive substring of the name.
 * `only.withStories` leaves out authors without stories (the OPDS catalog).
 */
export function listAuthors(db: Db, query: AuthorListQuery | AuthorSearchQuery, only: { withStories?: boolean } = {}): PageOf<AuthorDto> {
  const sortBy = query.sortBy ?? 'name';
  const direction = sortDirection(query.sortDir, sortBy === 'name' ? 'asc' : 'desc');
  const filter = { ...only, ...('query' in query ? { nameContains: nameKey(query.query) } : {}) };
  const { rows, total } = repo.listAuthors(db, filter, sortBy, direction, pageWindow(query));
  return toPage(presentAll(db, rows), total, query);
}

/** GET /api/authors/top-rated. */
export function topRatedAuthors(db: Db, limit: number): AuthorDto[] {
  return presentAll(db, repo.topRatedAuthors(db, limit));
}

/** POST /api/authors: a name already taken (case-insensitively) is a 409. */
export function createAuthor(db: Db, body: AuthorCreateBody): AuthorDto {
  const { changes, urls: given } = authorChanges(body, {});
  const name = changes.name ?? body.name;
  const notes = changes.notes ?? null;
  const urls = given ?? [];
  return writeTransaction(db, (tx) => {
    if (repo.authorNameTaken(tx, name)) throw nameConflict(name);
    const row = repo.insertAuthor(tx, { name, notes });
    repo.replaceAuthorUrls(tx, row.id, urls);
    return presentAuthor(row, urls);
  });
}

/**
 * A partial update, shared by both forms of PUT /api/authors/{id}: an absent field is left as
 * it is; `notes: null` and `rating: null` clear; `urls` replaces every URL (`null` = none).
 */
export interface AuthorPatch {
  name?: string;
  notes?: string | null;
  urls?: readonly string[] | null;
  rating?: number | null;
  /** `avatars/<file>` of an earlier upload to attach (JSON form, docs/decisions.md, "Images"); `null` removes the avatar. */
  avatarImagePath?: string | null;
}

export interface AuthorPatchOptions {
  /** The name the client used for the rating, for `details`: `rating` (JSON) or `authorRating` (multipart). */
  ratingField?: string;
  /**
   * The avatar this request uploaded (the multipart form's `avatar` part), which becomes the
   * author's avatar. It is discarded again if the update fails for any reason.
   */
  uploadedAvatar?: string | undefined;
  /** Offences found before (the multipart form's own), reported with the patch's. */
  issues?: ErrorDetails;
}

/** The checked columns of a patch, every offence collected into `details`. */
function checkAuthorPatch(patch: AuthorPatch, options: AuthorPatchOptions, details: ErrorDetails) {
  const { name, notes, rating, urls, avatarImagePath: avatar } = patch;
  const changes: repo.AuthorChanges = {
    name: name === undefined ? undefined : collect(details, () => cleanAuthorName(name)),
    notes: notes === undefined ? undefined : collect(details, () => checkNotes(notes)),
    rating: rating === undefined ? undefined : collect(details, () => checkRating(rating, options.ratingField ?? 'rating')),
    avatarImagePath:
      options.uploadedAvatar ??
      (typeof avatar === 'string' ? collect(details, () => parseImagePathOf('avatars', avatar, 'avatarImagePath').relPath) : avatar),
  };
  return { changes, urls: urls === undefined ? undefined : collect(details, () => cleanAuthorUrls(urls ?? [])) };
}

/** The validated columns of a patch (a create body is one too); one 400 names every bad field. */
function authorChanges(patch: AuthorPatch, options: AuthorPatchOptions): ReturnType<typeof checkAuthorPatch> {
  const details: ErrorDetails = { ...options.issues };
  const checked = checkAuthorPatch(patch, options, details);
  throwIfInvalid(details);
  return checked;
}

/**
 * The rule offences of an author body's schema-valid fields (create or JSON update), for the
 * route's `bodyRules` (src/validation.ts).
 */
export function authorBodyIssues(patch: AuthorPatch): ErrorDetails {
  const details: ErrorDetails = {};
  checkAuthorPatch(patch, {}, details);
  return details;
}

/**
 * PUT /api/authors/{id}, JSON and multipart alike: validates the patch, renames (409 on a
 * case-insensitive collision with another author), sets or clears the avatar and bumps
 * `updatedAt`, all in one write. An attached `avatarImagePath` must exist (400); the avatar the
 * row named before goes to the trash after the commit unless something else still names it.
 * A failed update leaves the row as it was and the request's uploaded avatar removed.
 */
export async function updateAuthor(db: Db, store: ImageStore, id: string, patch: AuthorPatch, options: AuthorPatchOptions = {}): Promise<AuthorDto> {
  const upload = options.uploadedAvatar;
  let validated: ReturnType<typeof authorChanges>;
  try {
    validated = authorChanges(patch, options);
  } catch (error) {
    await store.discardUpload(upload);
    throw error;
  }
  const { changes, urls } = validated;
  const avatar = changes.avatarImagePath;
  const attach: AttachedImage | undefined =
    upload === undefined && typeof avatar === 'string' ? { kind: 'avatars', path: avatar, field: 'avatarImagePath' } : undefined;
  return commitImageChange(db, store, { upload, attach }, (tx) => {
    const current = existing(tx, id);
    if (changes.name !== undefined && repo.authorNameTaken(tx, changes.name, id)) throw nameConflict(changes.name);
    const row = repo.updateAuthorRow(tx, id, changes) as AuthorRow;
    if (urls !== undefined) repo.replaceAuthorUrls(tx, id, urls);
    return { result: present(tx, row), released: avatar === undefined ? [] : [current.avatarImagePath] };
  });
}

/**
 * DELETE /api/authors/{id}: the URLs go with the author; its stories are kept and unlinked
 * (docs/decisions.md, "Deleting"). After the commit its avatar file goes to the trash unless another
 * author or story still names it. Returns the deleted row.
 */
export async function deleteAuthor(db: Db, store: ImageStore, id: string): Promise<AuthorRow> {
  return commitImageChange(db, store, {}, (tx) => {
    const row = repo.deleteAuthorRow(tx, id);
    if (row === undefined) throw authorNotFound(id);
    return { result: row, released: [row.avatarImagePath] };
  });
}

/** POST /api/authors/{id}/urls: appends the URL; one already present is left as it is. */
export function addAuthorUrl(db: Db, id: string, rawUrl: string): AuthorDto {
  const url = cleanNewAuthorUrl(rawUrl);
  return writeTransaction(db, (tx) => {
    const row = existing(tx, id);
    const urls = repo.findAuthorUrls(tx, [id]).get(id) ?? [];
    if (urls.includes(url)) return presentAuthor(row, urls);
    if (urls.length >= AUTHOR_URLS_MAX) throw invalidField('url', `an author can have at most ${AUTHOR_URLS_MAX} URLs`);
    repo.appendAuthorUrl(tx, id, url);
    return present(tx, repo.touchAuthor(tx, id) as AuthorRow);
  });
}

/** DELETE /api/authors/{id}/urls: removes the URL; one not present leaves the author unchanged (200). */
export function removeAuthorUrl(db: Db, id: string, rawUrl: string): AuthorDto {
  const url = cleanAuthorUrl(rawUrl);
  return writeTransaction(db, (tx) => {
    const row = existing(tx, id);
    if (!repo.removeAuthorUrl(tx, id, url)) return present(tx, row);
    return present(tx, repo.touchAuthor(tx, id) as AuthorRow);
  });
}
