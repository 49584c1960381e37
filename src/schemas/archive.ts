/**
 * The library archive's contracts (docs/export-format.md; docs/decisions.md, "Library archive"):
 * what each file inside the ZIP holds, and the two route answers. The restore validates every
 * entry it reads against these, with the same validator the routes use, so an archive is held to
 * the API's own limits (names 255, notes 10,000, 100 URLs, 100 tags a story, ratings 1 to 5).
 */
import { Type, type Static } from '@sinclair/typebox';
import { AUTHOR_NAME_MAX, AUTHOR_NOTES_MAX, AUTHOR_URLS_MAX } from './author.js';
import { DateTime, HttpUrl, Nullable, Rating, Uuid } from './common.js';
import { IMAGE_PATH_MAX } from './files.js';
import { READING_POSITION_MAX } from './reading-progress.js';
import { ReadingStatus } from './reading-status.js';
import { SERIES_DESCRIPTION_MAX, SERIES_NAME_MAX } from './series.js';
import { SHELF_DESCRIPTION_MAX, SHELF_KINDS, SHELF_NAME_MAX, SHELF_STORIES_MAX, SmartShelfQuery } from './shelf.js';
import { CHAPTERS_MAX, ChapterTitle } from './chapter.js';
import { LanguageTag, STORY_AUTHORS_MAX, STORY_DESCRIPTION_MAX, STORY_TAG_NAMES_MAX, STORY_TITLE_MAX, StoryStatus } from './story.js';
import { TAG_NAME_MAX, TagKindSchema } from './tag.js';

export const ARCHIVE_FORMAT = 'storyshelf-archive';
/** Bumped when a reader of the old version would misread the new one (docs/export-format.md, "Versions"). */
export const ARCHIVE_VERSION = 1;

const ImagePathText = Type.String({ maxLength: IMAGE_PATH_MAX, description: 'covers/<file> or avatars/<file>, as stored' });

export const ArchiveCounts = Type.Object({
  authors: Type.Integer({ minimum: 0 }),
  series: Type.Integer({ minimum: 0 }),
  tags: Type.Integer({ minimum: 0 }),
  stories: Type.Integer({ minimum: 0 }),
  progress: Type.Integer({ minimum: 0 }),
  images: Type.Integer({ minimum: 0 }),
  /** Absent from archives written before shelves. */
  shelves: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type ArchiveCounts = Static<typeof ArchiveCounts>;

export const ArchiveManifest = Type.Object({
  format: Type.Literal(ARCHIVE_FORMAT),
  version: Type.Integer({ minimum: 1 }),
  app: Type.Object({ name: Type.String({ maxLength: 100 }), version: Type.String({ maxLength: 100 }) }),
  createdAt: DateTime,
  counts: ArchiveCounts,
  /** Images a row named that were found neither in the image folders nor in the trash: their references are left out. */
  missingImages: Type.Array(ImagePathText, { maxItems: 1_000_000 }),
});
export type ArchiveManifest = Static<typeof ArchiveManifest>;

/** One line of `authors.jsonl`. */
export const ArchiveAuthor = Type.Object({
  id: Uuid,
  name: Type.String({ minLength: 1, maxLength: AUTHOR_NAME_MAX }),
  notes: Nullable(Type.String({ maxLength: AUTHOR_NOTES_MAX })),
  urls: Type.Array(HttpUrl, { maxItems: AUTHOR_URLS_MAX }),
  rating: Nullable(Rating),
  avatarImagePath: Nullable(ImagePathText),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ArchiveAuthor = Static<typeof ArchiveAuthor>;

/** One line of `series.jsonl`. */
export const ArchiveSeries = Type.Object({
  id: Uuid,
  name: Type.String({ minLength: 1, maxLength: SERIES_NAME_MAX }),
  description: Nullable(Type.String({ maxLength: SERIES_DESCRIPTION_MAX })),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ArchiveSeries = Static<typeof ArchiveSeries>;

/** One line of `tags.jsonl`. */
export const ArchiveTag = Type.Object({
  id: Uuid,
  name: Type.String({ minLength: 1, maxLength: TAG_NAME_MAX }),
  /** What the tag says at its source (docs/decisions.md, "Tag kinds"). Optional: older archives have none. */
  kind: Type.Optional(Nullable(TagKindSchema)),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ArchiveTag = Static<typeof ArchiveTag>;

/**
 * One chapter of a story's `chapters`, in reading order; its plain text and word count are
 * derived again on restore, like the story's. The source fields are what a refresh matches on.
 */
export const ArchiveChapter = Type.Object({
  title: ChapterTitle,
  contentHtml: Type.String(),
  sourceUrl: Nullable(HttpUrl),
  sourceKey: Nullable(Type.String({ maxLength: 255 })),
  sourceGoneAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ArchiveChapter = Static<typeof ArchiveChapter>;

/** `stories/<id>.json`: every field a story keeps; the plain text and word count are derived again on restore. */
export const ArchiveStory = Type.Object({
  id: Uuid,
  title: Type.String({ minLength: 1, maxLength: STORY_TITLE_MAX }),
  summary: Nullable(Type.String()),
  description: Nullable(Type.String({ maxLength: STORY_DESCRIPTION_MAX })),
  contentHtml: Nullable(Type.String()),
  sourceUrl: Nullable(HttpUrl),
  rating: Nullable(Rating),
  volume: Nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  authorId: Nullable(Uuid),
  seriesId: Nullable(Uuid),
  tagNames: Type.Array(Type.String({ minLength: 1, maxLength: TAG_NAME_MAX }), { maxItems: STORY_TAG_NAMES_MAX }),
  coverPath: Nullable(ImagePathText),
  createdAt: DateTime,
  updatedAt: DateTime,
  /**
   * The reader's own state (docs/decisions.md, "Reading status"). Optional: archives written
   * before it have none, and restoring one leaves a story's state as the library has it.
   */
  readingStatus: Type.Optional(Nullable(ReadingStatus)),
  finishedAt: Type.Optional(Nullable(DateTime)),
  readCount: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  favourite: Type.Optional(Type.Boolean()),
  /**
   * The chapters (docs/decisions.md, "Chapters"). Optional: an archive written before chapters
   * has only `contentHtml`, which restores as one untitled chapter. When present they are the
   * text, and `contentHtml` (the whole work) is there for people reading the archive by hand.
   */
  chapters: Type.Optional(Type.Array(ArchiveChapter, { minItems: 1, maxItems: CHAPTERS_MAX })),
  /** The authors after the first (`authorId`), in order. */
  coauthorIds: Type.Optional(Type.Array(Uuid, { maxItems: STORY_AUTHORS_MAX - 1 })),
  status: Type.Optional(Nullable(StoryStatus)),
  publishedAt: Type.Optional(Nullable(DateTime)),
  sourceUpdatedAt: Type.Optional(Nullable(DateTime)),
  language: Type.Optional(Nullable(LanguageTag)),
  chaptersAddedAt: Type.Optional(Nullable(DateTime)),
});
export type ArchiveStory = Static<typeof ArchiveStory>;

/** One line of `shelves.jsonl`: a shelf, and a manual shelf's stories in its order. */
export const ArchiveShelf = Type.Object({
  id: Uuid,
  name: Type.String({ minLength: 1, maxLength: SHELF_NAME_MAX }),
  description: Nullable(Type.String({ maxLength: SHELF_DESCRIPTION_MAX })),
  kind: Type.Union(SHELF_KINDS.map((kind) => Type.Literal(kind))),
  /** A smart shelf's saved search; null for a manual shelf. */
  query: Nullable(SmartShelfQuery),
  /** A manual shelf's stories in its order; empty for a smart shelf. */
  storyIds: Type.Array(Uuid, { maxItems: SHELF_STORIES_MAX }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ArchiveShelf = Static<typeof ArchiveShelf>;

/** One line of `progress.jsonl`: a `reading_progress` row. */
export const ArchiveProgress = Type.Object({
  storyId: Uuid,
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  position: Nullable(Type.String({ maxLength: READING_POSITION_MAX })),
  updatedAt: DateTime,
});
export type ArchiveProgress = Static<typeof ArchiveProgress>;

/** 200 of `GET /api/export`: the ZIP itself, streamed. */
export const ArchiveBytes = Type.String({ format: 'binary', contentMediaType: 'application/zip', description: 'The library archive (docs/export-format.md)' });

/** 202 of `POST /api/import/archive`. */
export const ArchiveRestoreAccepted = Type.Object({
  message: Type.String(),
  jobId: Uuid,
});
export type ArchiveRestoreAccepted = Static<typeof ArchiveRestoreAccepted>;
