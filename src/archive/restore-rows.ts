/**
 * The row writes of a restore (docs/decisions.md, "Library archive"), each called inside a
 * `writeTransaction`, so the count triggers, the search index and the Typesense outbox follow
 * every row exactly as they follow the API's own writes. Rows keep the archive's ids and
 * timestamps. A row whose id exists is updated, never duplicated; a row whose name folds like
 * another row's (src/lib/names.ts) is merged into that row (`mapped`), which keeps its own
 * fields: names are unique, and the library's own row is never overwritten by a stranger's.
 */
import { eq } from 'drizzle-orm';
import type { Tx } from '../db/open.js';
import { authors, series, shelves, stories, tags } from '../db/schema.js';
import { findAuthorById, findAuthorByName, replaceAuthorUrls } from '../authors/repository.js';
import { findSeriesById, findSeriesByName } from '../series/repository.js';
import { findTagById, findTagByName, findOrCreateTags, setMissingTagKinds } from '../tags/repository.js';
import { cleanName, nameKey, storedTagName } from '../lib/names.js';
import { findProgress, saveProgressRow } from '../stories/progress-repository.js';
import { insertStory, linkTags, missingStoryIds, replaceCoauthors, tagIdsOf, unlinkTags } from '../stories/repository.js';
import { replaceChapters } from '../stories/chapter-service.js';
import { stampChapter } from '../stories/chapter-repository.js';
import { chapterCountOf, textAsChapter, type ChapterText } from '../stories/chapter-text.js';
import type { StoryText } from '../html/story-text.js';
import type { ArchiveAuthor, ArchiveProgress, ArchiveSeries, ArchiveShelf, ArchiveStory, ArchiveTag } from '../schemas/archive.js';
import { findShelfById, replaceShelfStories, shelfNameTaken } from '../shelves/repository.js';
import { normalizedQuery } from '../shelves/service.js';

/** Archive ids merged into a library row of the same name, by kind: archive id -> library id. */
export interface IdMap {
  authors: Record<string, string>;
  series: Record<string, string>;
}

export type RowOutcome = { kind: 'written'; released?: string | null } | { kind: 'mapped'; to: string } | { kind: 'kept-name'; note: string };

/** An author: inserted, updated (by id), or merged into the author of the same name. */
export function restoreAuthor(tx: Tx, author: ArchiveAuthor): RowOutcome {
  const existing = findAuthorById(tx, author.id);
  const holder = findAuthorByName(tx, author.name);
  const values = {
    notes: author.notes,
    rating: author.rating,
    avatarImagePath: author.avatarImagePath,
    createdAt: author.createdAt,
    updatedAt: author.updatedAt,
  };
  if (existing === undefined && holder !== undefined) return { kind: 'mapped', to: holder.id };
  const renameable = holder === undefined || holder.id === author.id;
  const named = renameable ? { name: cleanName(author.name), nameKey: nameKey(author.name) } : {};
  if (existing === undefined) {
    tx.insert(authors).values({ id: author.id, name: cleanName(author.name), nameKey: nameKey(author.name), ...values }).run();
  } else {
    tx.update(authors).set({ ...values, ...named }).where(eq(authors.id, author.id)).run();
  }
  replaceAuthorUrls(tx, author.id, [...new Set(author.urls.map((url) => url.trim()))]);
  if (!renameable) return { kind: 'kept-name', note: `another author is already named "${author.name}"; this one keeps its name "${existing?.name ?? ''}"` };
  return { kind: 'written', released: existing?.avatarImagePath === author.avatarImagePath ? null : existing?.avatarImagePath };
}

/** A series: inserted, updated (by id), or merged into the series of the same name. */
export function restoreSeries(tx: Tx, item: ArchiveSeries): RowOutcome {
  const existing = findSeriesById(tx, item.id);
  const holder = findSeriesByName(tx, item.name);
  if (existing === undefined && holder !== undefined) return { kind: 'mapped', to: holder.id };
  const renameable = holder === undefined || holder.id === item.id;
  const values = { description: item.description, createdAt: item.createdAt, updatedAt: item.updatedAt };
  if (existing === undefined) {
    tx.insert(series).values({ id: item.id, name: cleanName(item.name), nameKey: nameKey(item.name), ...values }).run();
    return { kind: 'written' };
  }
  const named = renameable ? { name: cleanName(item.name), nameKey: nameKey(item.name) } : {};
  tx.update(series).set({ ...values, ...named }).where(eq(series.id, item.id)).run();
  return renameable ? { kind: 'written' } : { kind: 'kept-name', note: `another series is already named "${item.name}"; this one keeps its name "${existing.name}"` };
}

/** A tag: inserted with its id, renamed (by id), or left to the tag of the same name (stories link tags by name). */
export function restoreTag(tx: Tx, tag: ArchiveTag): RowOutcome {
  const name = storedTagName(tag.name);
  const existing = findTagById(tx, tag.id);
  const holder = findTagByName(tx, name);
  if (existing === undefined && holder !== undefined) return { kind: 'mapped', to: holder.id };
  // An older archive has no kinds: a tag already in the library keeps its own.
  const kind = tag.kind === undefined ? {} : { kind: tag.kind };
  if (existing === undefined) {
    tx.insert(tags).values({ id: tag.id, name, nameKey: nameKey(name), ...kind, createdAt: tag.createdAt, updatedAt: tag.updatedAt }).run();
    return { kind: 'written' };
  }
  if (holder !== undefined && holder.id !== tag.id) return { kind: 'kept-name', note: `another tag is already named "${name}"; this one keeps its name "${existing.name}"` };
  tx.update(tags).set({ name, nameKey: nameKey(name), ...kind, createdAt: tag.createdAt, updatedAt: tag.updatedAt }).where(eq(tags.id, tag.id)).run();
  return { kind: 'written' };
}

/** What a story row is restored with: the archive's fields, its HTML derived again, its links resolved. */
export interface PreparedStory {
  story: ArchiveStory;
  text: StoryText;
  /** The cover, or null when the archive's cover is in neither the archive nor the library. */
  coverPath: string | null;
  /** The archive's chapters, sanitized and derived; undefined for an archive written before chapters. */
  chapters?: ChapterText[];
}

/**
 * A story, inserted or updated by id with every field, its tags replaced by the archive's (found
 * or created by name, as the API does). An author or series id is followed through `ids` (merged
 * by name) and dropped, with a note, when no such row exists. Returns the notes and the cover it
 * replaced.
 */
export function restoreStory(tx: Tx, prepared: PreparedStory, ids: IdMap): { notes: string[]; released: string | null; countsDone: true } {
  const { story, text } = prepared;
  const notes: string[] = [];
  const link = (id: string | null, map: Record<string, string>, exists: (id: string) => boolean, what: string): string | null => {
    if (id === null) return null;
    const target = map[id] ?? id;
    if (exists(target)) return target;
    notes.push(`its ${what} ${id} is in neither the archive nor the library; it is restored without one`);
    return null;
  };
  const values = {
    title: story.title.trim(),
    summary: story.summary,
    description: story.description,
    // The whole work and its chapter count: replaceChapters below writes the chapters alone.
    ...text,
    chapterCount: chapterCountOf(prepared.chapters ?? [text]),
    sourceUrl: story.sourceUrl,
    coverPath: prepared.coverPath,
    rating: story.rating,
    volume: story.volume,
    authorId: link(story.authorId, ids.authors, (id) => findAuthorById(tx, id) !== undefined, 'author'),
    seriesId: link(story.seriesId, ids.series, (id) => findSeriesById(tx, id) !== undefined, 'series'),
    createdAt: story.createdAt,
    updatedAt: story.updatedAt,
    // An older archive has no reader state: a story already in the library keeps its own.
    ...(story.readingStatus === undefined ? {} : { readingStatus: story.readingStatus }),
    ...(story.finishedAt === undefined ? {} : { finishedAt: story.finishedAt }),
    ...(story.readCount === undefined ? {} : { readCount: story.readCount }),
    ...(story.favourite === undefined ? {} : { favourite: story.favourite }),
    // Likewise for the fields chapters brought (docs/decisions.md, "Chapters").
    ...(story.status === undefined ? {} : { status: story.status }),
    ...(story.publishedAt === undefined ? {} : { publishedAt: story.publishedAt }),
    ...(story.sourceUpdatedAt === undefined ? {} : { sourceUpdatedAt: story.sourceUpdatedAt }),
    ...(story.language === undefined ? {} : { language: story.language }),
    ...(story.chaptersAddedAt === undefined ? {} : { chaptersAddedAt: story.chaptersAddedAt }),
  };
  const existing = tx.select({ coverPath: stories.coverPath }).from(stories).where(eq(stories.id, story.id)).get();
  if (existing === undefined) insertStory(tx, { id: story.id, ...values });
  else tx.update(stories).set(values).where(eq(stories.id, story.id)).run();
  if (prepared.chapters === undefined || story.chapters === undefined) {
    // An archive written before chapters: its body is the story's one chapter (docs/decisions.md, "Chapters").
    replaceChapters(tx, story.id, [textAsChapter(text)], story.updatedAt);
  } else {
    replaceChapters(tx, story.id, prepared.chapters, story.updatedAt);
    story.chapters.forEach((chapter, i) => stampChapter(tx, story.id, i + 1, chapter));
  }
  if (story.coauthorIds !== undefined) {
    const first = values.authorId;
    const coauthors = story.coauthorIds
      .map((id) => link(id, ids.authors, (target) => findAuthorById(tx, target) !== undefined, 'co-author'))
      .filter((id): id is string => id !== null && id !== first);
    replaceCoauthors(tx, story.id, [...new Set(coauthors)]);
  }
  const names = [...new Set(story.tagNames.map(storedTagName).filter((name) => name !== ''))];
  const wanted = findOrCreateTags(tx, names).map((tag) => tag.id);
  const current = tagIdsOf(tx, story.id);
  unlinkTags(tx, story.id, current.filter((tagId) => !wanted.includes(tagId)));
  linkTags(tx, story.id, wanted.filter((tagId) => !current.includes(tagId)));
  const released = existing !== undefined && existing.coverPath !== prepared.coverPath ? existing.coverPath : null;
  return { notes, released, countsDone: true };
}

/**
 * A reading position, for a story the library has: the newer of the library's and the
 * archive's wins (reading moves on, and a restore must not take a reader back). Returns false
 * when the story is not in the library.
 */
export function restoreProgress(tx: Tx, row: ArchiveProgress): boolean {
  if (tx.select({ id: stories.id }).from(stories).where(eq(stories.id, row.storyId)).get() === undefined) return false;
  const current = findProgress(tx, row.storyId);
  if (current === undefined || current.updatedAt < row.updatedAt) saveProgressRow(tx, row);
  return true;
}

/**
 * A shelf: inserted or updated (by id), a smart shelf's search checked as the API checks it, a
 * manual shelf's stories set to those of its list the library has (run after the stories, so
 * those of the archive are there), the others left out with a note. A shelf whose name another
 * shelf of the library already has is left as the library has it (a reader's list is not merged
 * into another of the same name). Returns the notes, and whether the shelf was restored.
 */
export function restoreShelf(tx: Tx, item: ArchiveShelf): { notes: string[]; restored: boolean } {
  if (item.kind === 'smart' && item.query === null) throw new Error('a smart shelf needs its query');
  const query = item.kind === 'smart' && item.query !== null ? JSON.stringify(normalizedQuery(item.query)) : null;
  const existing = findShelfById(tx, item.id);
  const taken = shelfNameTaken(tx, item.name, item.id);
  if (existing === undefined && taken) return { notes: [`a shelf named "${item.name}" is already in the library; it is kept as it is`], restored: false };
  const values = { description: item.description, kind: item.kind, query, createdAt: item.createdAt, updatedAt: item.updatedAt };
  const named = { name: cleanName(item.name), nameKey: nameKey(item.name) };
  if (existing === undefined) tx.insert(shelves).values({ id: item.id, ...named, ...values }).run();
  else tx.update(shelves).set({ ...values, ...(taken ? {} : named) }).where(eq(shelves.id, item.id)).run();
  const storyIds = [...new Set(item.storyIds)];
  const missing = new Set(missingStoryIds(tx, storyIds));
  replaceShelfStories(tx, item.id, item.kind === 'manual' ? storyIds.filter((id) => !missing.has(id)) : []);
  const notes = [
    ...(taken ? [`another shelf is already named "${item.name}"; this one keeps its name "${existing?.name ?? ''}"`] : []),
    ...(missing.size > 0 ? [`${missing.size} of its stories ${missing.size === 1 ? 'is' : 'are'} not in the library; left out`] : []),
  ];
  return { notes, restored: true };
}
