/**
 * The chapter contracts (docs/api.md, "Chapters — /api/stories/{id}/chapters"): a story's contents and its chapters, 1-based
 * `index` in reading order.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, HttpUrl, Nullable, Uuid } from './common.js';

/** A chapter title: longer than any real one (AO3 allows 255), short enough for a contents page. */
export const CHAPTER_TITLE_MAX = 500;
/**
 * Chapters one story may have (docs/decisions.md, "Chapters"): web serials run to ~3,000, so the
 * bound sits above that; one body is also held by the request body limit.
 */
export const CHAPTERS_MAX = 5000;

const chapterMetaFields = {
  index: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  wordCount: Type.Integer(),
  sourceUrl: Nullable(Type.String()),
  sourceGoneAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
};

/** A chapter in the contents list: everything but its text. */
export const ChapterMetaDto = Type.Object(chapterMetaFields);
export type ChapterMetaDto = Static<typeof ChapterMetaDto>;

export const ChapterList = Type.Array(ChapterMetaDto);

export const ChapterDto = Type.Object({ ...chapterMetaFields, contentHtml: Type.String(), contentPlain: Type.String() });
export type ChapterDto = Static<typeof ChapterDto>;

export const ChapterTitle = Type.String({ maxLength: CHAPTER_TITLE_MAX });

/** A chapter in a story body's `chapters`, and the body of `POST .../chapters`. */
export const ChapterInput = Type.Object({
  title: Type.Optional(Nullable(ChapterTitle)),
  contentHtml: Type.Optional(Nullable(Type.String())),
  sourceUrl: Type.Optional(Nullable(HttpUrl)),
});
export type ChapterInput = Static<typeof ChapterInput>;

/** `PUT .../chapters/{index}`: absent fields are kept. */
export const ChapterUpdateBody = ChapterInput;

export const ChapterParams = Type.Object({ id: Uuid, index: Type.Integer({ minimum: 1, maximum: CHAPTERS_MAX }) });
export type ChapterParams = Static<typeof ChapterParams>;
