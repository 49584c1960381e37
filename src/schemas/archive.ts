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
import { STORY_DESCRIPTION_MAX, STORY_TAG_NAMES_MAX, STORY_TITLE_MAX } from './story.js';
import { TAG_NAME_MAX } from './tag.js';

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
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ArchiveTag = Static<typeof ArchiveTag>;

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
});
export type ArchiveStory = Static<typeof ArchiveStory>;

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
