/**
 * Story rules and writes (docs/api.md, "Stories — /api/stories"; docs/decisions.md, "Shapes and
 * values"). Every write is one `writeTransaction`, so the search documents change with the rows;
 * nothing inside it awaits, and the costly HTML work is done before it opens. Each write then reads
 * the story back, as the API shows it. Writes that can change the cover go through
 * `commitImageChange` (write file, commit row, remove old file).
 */
import type { Db, Tx } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import { BadRequest, type ErrorDetails } from '../errors.js';
import { storyNotFound } from './errors.js';
import { commitImageChange, type AttachedImage } from '../images/image-changes.js';
import { inlineImagePaths, releasedInlineImages } from '../images/inline-images.js';
import type { ImageStore } from '../images/store.js';
import { findAuthorById, findOrCreateAuthor } from '../authors/repository.js';
import { findOrCreateSeries, findSeriesById } from '../series/repository.js';
import { findOrCreateTags, findTagById, setMissingTagKinds } from '../tags/repository.js';
import { insertChapters, replaceChapters } from './chapter-service.js';
import { chapterCountOf, textAsChapter, type ChapterText } from './chapter-text.js';
import { tagNotFound } from '../tags/service.js';
import { newId, nextUpdatedAt, nowIso } from '../lib/clock.js';
import type { JsonBytes } from '../lib/json-bytes.js';
import type { StoryCreateBody, StoryDto, StoryUpdateBody } from '../schemas/story.js';
import { parseStoryBody, readStoryBody, unknownLinkMessage, type LinkChoice, type StoryInput } from './input.js';
import * as repo from './repository.js';
import type { StoryWithoutText } from './present.js';

export { storyNotFound };

/** The stories with these ids as a JSON array of `StoryDto`s, in the order given: one query whatever the count. */
export function presentStories(db: Db, ids: readonly string[]): JsonBytes {
  return repo.loadStoriesJsonArray(db, ids).json;
}

/** One story as `StoryDto` JSON; 404 when there is none. */
export function getStory(db: Db, id: string): JsonBytes {
  const story = repo.loadStoryJson(db, id);
  if (story === undefined) throw storyNotFound(id);
  return story;
}

/** One story as a `StoryDto` object, for the pages (the API sends {@link getStory}'s bytes); 404 when there is none. */
/** The reader's story head (the reader shows no more of the story than this beside its chapter); 404 when absent. */
export function getStoryHead(db: Db, id: string): repo.StoryHead {
  const head = repo.findStoryHead(db, id);
  if (head === undefined) throw storyNotFound(id);
  return head;
}

export function getStoryDto(db: Db, id: string): StoryDto {
  const story = repo.loadStory(db, id);
  if (story === undefined) throw storyNotFound(id);
  return story;
}

/** {@link getStoryDto} without `contentHtml` and `contentPlain`, for a page that shows none of the text; 404 for an unknown story. */
export function getStoryWithoutText(db: Db, id: string): StoryWithoutText {
  const story = repo.loadStoryWithoutText(db, id);
  if (story === undefined) throw storyNotFound(id);
  return story;
}

/** An author/series choice as a column value: `undefined` leaves it, `null` clears it. */
function resolveLink(
  tx: Tx,
  choice: LinkChoice,
  find: (tx: Tx, id: string) => { id: string } | undefined,
  findOrCreate: (tx: Tx, name: string) => { id: string },
  field: 'authorId' | 'seriesId',
  details: ErrorDetails,
): string | null | undefined {
  if (choice === undefined || choice === null) return choice;
  if ('name' in choice) return findOrCreate(tx, choice.name).id;
  if (find(tx, choice.id) === undefined) {
    details[field] = unknownLinkMessage(field);
    return undefined;
  }
  return choice.id;
}

/** The author and series columns the input sets; unknown ids are one 400 naming each field. */
function resolveLinks(tx: Tx, input: StoryInput): repo.StoryPatch {
  const details: ErrorDetails = {};
  const authorId = resolveLink(tx, input.author, findAuthorById, findOrCreateAuthor, 'authorId', details);
  const seriesId = resolveLink(tx, input.series, findSeriesById, findOrCreateSeries, 'seriesId', details);
  if (Object.keys(details).length > 0) throw new BadRequest('Validation failed', details);
  const patch: repo.StoryPatch = {};
  if (authorId !== undefined) patch.authorId = authorId;
  if (seriesId !== undefined) patch.seriesId = seriesId;
  return patch;
}

/** The plain columns the input sets (everything but links and tags). */
function fieldPatch(input: StoryInput): repo.StoryPatch {
  const patch: repo.StoryPatch = {};
  if (input.title !== undefined) patch.title = input.title;
  if (input.summary !== undefined) patch.summary = input.summary;
  if (input.description !== undefined) patch.description = input.description;
  if (input.sourceUrl !== undefined) patch.sourceUrl = input.sourceUrl;
  if (input.volume !== undefined) patch.volume = input.volume;
  if (input.rating !== undefined) patch.rating = input.rating;
  if (input.text !== undefined) Object.assign(patch, input.text);
  if (input.text !== undefined) patch.chapterCount = chapterCountOf(input.chapters ?? [input.text]);
  if (input.coverPath !== undefined) patch.coverPath = input.coverPath;
  if (input.status !== undefined) patch.status = input.status;
  if (input.publishedAt !== undefined) patch.publishedAt = input.publishedAt;
  if (input.sourceUpdatedAt !== undefined) patch.sourceUpdatedAt = input.sourceUpdatedAt;
  if (input.language !== undefined) patch.language = input.language;
  return patch;
}

/**
 * The columns a parsed input sets, its author and series found or created by name, inside the
 * caller's write transaction: the bulk edit's `set` (src/bulk/service.ts), parsed once by
 * `parseStoryBody` and applied to every story.
 */
export function storyPatchOf(tx: Tx, input: StoryInput): repo.StoryPatch {
  return { ...fieldPatch(input), ...resolveLinks(tx, input) };
}

/** The earlier upload a body's `coverPath` attaches, checked and held around the write. */
function coverAttachment(input: StoryInput): AttachedImage | undefined {
  if (input.coverPath === undefined || input.coverPath === null) return undefined;
  return { kind: 'covers', path: input.coverPath, field: 'coverPath' };
}

/**
 * The chapters an input replaces the story's with: its own, or its text as one untitled chapter
 * (an importer that gives a flat body); undefined when it leaves the text alone.
 */
function chaptersOf(input: StoryInput): ChapterText[] | undefined {
  if (input.chapters !== undefined) return input.chapters;
  return input.text === undefined ? undefined : [textAsChapter(input.text)];
}

/** The input's tags, found or created, with the kinds an importer gave (the first kind given sticks). */
function tagsOf(tx: Tx, input: StoryInput): { id: string }[] {
  const rows = findOrCreateTags(tx, input.tagNames ?? []);
  if (input.tagKinds !== undefined) setMissingTagKinds(tx, rows, input.tagKinds);
  return rows;
}

/**
 * Makes the story's authors after the first exactly these names, in order (found or created);
 * a name that is the first author's, or given twice, is kept once.
 */
function setCoauthors(tx: Tx, storyId: string, names: readonly string[]): void {
  const first = repo.findStoryAuthorId(tx, storyId);
  const ids: string[] = [];
  for (const name of names) {
    const id = findOrCreateAuthor(tx, name).id;
    if (id !== first && !ids.includes(id)) ids.push(id);
  }
  repo.replaceCoauthors(tx, storyId, ids);
}

/** Makes the story's tags exactly these, touching only the links that change. */
function replaceTags(tx: Tx, storyId: string, input: StoryInput): void {
  const wanted = tagsOf(tx, input).map((tag) => tag.id);
  const current = repo.tagIdsOf(tx, storyId);
  repo.unlinkTags(tx, storyId, current.filter((tagId) => !wanted.includes(tagId)));
  repo.linkTags(tx, storyId, wanted.filter((tagId) => !current.includes(tagId)));
}

/**
 * Inserts a new story from parsed input inside the caller's write transaction: links (found or
 * created by name) and tags, as `POST /api/stories` does. The file importer calls it with its own
 * progress row in the same transaction (docs/decisions.md, "File import"), so an imported story
 * and the job's record of it commit together.
 */
export function insertNewStory(tx: Tx, input: StoryInput, fallbackTitle: string, id = newId(), now = nowIso()): string {
  repo.insertStory(tx, {
    summary: null,
    description: null,
    contentHtml: null,
    contentPlain: null,
    sourceUrl: null,
    wordCount: 0,
    volume: null,
    rating: null,
    coverPath: null,
    authorId: null,
    seriesId: null,
    ...fieldPatch(input),
    ...resolveLinks(tx, input),
    id,
    title: input.title ?? fallbackTitle,
    createdAt: now,
    updatedAt: now,
  });
  // A new story has no links yet: link its tags without reading them first.
  if (input.tagNames !== undefined) repo.linkTags(tx, id, tagsOf(tx, input).map((tag) => tag.id));
  insertChapters(tx, id, chaptersOf(input) ?? [], now);
  if (input.coauthorNames !== undefined) setCoauthors(tx, id, input.coauthorNames);
  return id;
}

/**
 * Create (docs/decisions.md, "Shapes and values"): authorName/seriesName/tagNames are found case-insensitively or created;
 * `coverPath` must name an uploaded cover (400 otherwise).
 */
export async function createStory(db: Db, store: ImageStore, body: StoryCreateBody): Promise<JsonBytes> {
  return getStory(db, await addStory(db, store, body));
}

/** {@link createStory}'s write alone: the new story's id, for a caller that does not send the story (a page's redirect). */
export async function addStory(db: Db, store: ImageStore, body: StoryCreateBody): Promise<string> {
  const input = await readStoryBody(db, body);
  const id = newId();
  await commitImageChange(db, store, { attach: coverAttachment(input) }, (tx) => {
    insertNewStory(tx, input, body.title, id);
    return { result: undefined, released: [] };
  });
  return id;
}

/**
 * Update (docs/decisions.md, "Shapes and values"): partial; `null` clears; `tagNames` replaces the whole set; 404 when absent.
 * A `coverPath` that replaces or clears the cover releases the old file after the commit.
 */
export async function updateStory(db: Db, store: ImageStore, id: string, body: StoryUpdateBody): Promise<JsonBytes> {
  await changeStory(db, store, id, body);
  return getStory(db, id);
}

/** {@link updateStory}'s write alone, for a caller that does not send the story (a page's redirect). */
export async function changeStory(db: Db, store: ImageStore, id: string, body: StoryUpdateBody): Promise<void> {
  const input = await readStoryBody(db, body);
  await commitImageChange(db, store, { attach: coverAttachment(input) }, (tx) => {
    const current = repo.findStoryStamp(tx, id);
    if (current === undefined) throw storyNotFound(id);
    // A new body releases the imported images the old one named and it does not.
    const releasedImages = input.text === undefined ? [] : releasedInlineImages(repo.findStoryHtml(tx, id), input.text.contentHtml);
    repo.updateStory(tx, id, { ...fieldPatch(input), ...resolveLinks(tx, input), updatedAt: nextUpdatedAt(current.updatedAt) });
    if (input.tagNames !== undefined) replaceTags(tx, id, input);
    const chapters = chaptersOf(input);
    if (chapters !== undefined) replaceChapters(tx, id, chapters, nowIso());
    if (input.coauthorNames !== undefined) setCoauthors(tx, id, input.coauthorNames);
    else if (input.author !== undefined) repo.dropCoauthor(tx, id, repo.findStoryAuthorId(tx, id));
    return { result: undefined, released: [...(input.coverPath === undefined ? [] : [current.coverPath]), ...releasedImages] };
  });
}

/** `POST /stories/{id}/rating`. */
export function rateStory(db: Db, id: string, rating: number): JsonBytes {
  writeTransaction(db, (tx) => {
    const current = repo.findStoryStamp(tx, id);
    if (current === undefined) throw storyNotFound(id);
    repo.updateStory(tx, id, { rating, updatedAt: nextUpdatedAt(current.updatedAt) });
  });
  return getStory(db, id);
}

/**
 * Links or unlinks an existing tag. Unknown story or tag: 404. Adding a linked tag or removing
 * an unlinked one changes nothing (200); a real change bumps `updatedAt`.
 */
export function setStoryTag(db: Db, id: string, tagId: string, linked: boolean): JsonBytes {
  writeTransaction(db, (tx) => {
    const current = repo.findStoryStamp(tx, id);
    if (current === undefined) throw storyNotFound(id);
    if (findTagById(tx, tagId) === undefined) throw tagNotFound(tagId);
    const changed = linked ? repo.linkTags(tx, id, [tagId]) : repo.unlinkTags(tx, id, [tagId]);
    if (changed > 0) repo.updateStory(tx, id, { updatedAt: nextUpdatedAt(current.updatedAt) });
  });
  return getStory(db, id);
}

/**
 * Deletes the story and its tag links (cascade); the author/series/tag counts follow by trigger.
 * After the commit its cover file and the imported images its body names go to the trash, unless
 * another story or author still names them (docs/decisions.md, "Deleting").
 */
export async function deleteStory(db: Db, store: ImageStore, id: string): Promise<void> {
  await commitImageChange(db, store, {}, (tx) => ({ result: undefined, released: removeStory(tx, id) }));
}

/**
 * {@link deleteStory}'s write inside the caller's write transaction (the bulk edit deletes many in
 * one): 404 when there is no such story; returns the image paths the story named, for the caller's
 * `commitImageChange` to release after the commit.
 */
export function removeStory(tx: Tx, id: string): Array<string | null> {
  const deleted = repo.deleteStory(tx, id);
  if (deleted === undefined) throw storyNotFound(id);
  return [deleted.coverPath, ...inlineImagePaths(deleted.contentHtml)];
}
