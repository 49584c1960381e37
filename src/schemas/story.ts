/**
 * The story contracts (docs/api.md, "Stories — /api/stories" and "Fields › Story"), without
 * search, which has its own owner: the DTO, the create/update bodies, the cover endpoints, and the
 * params and queries of the lists.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, HttpUrl, limitQuery, Nullable, Paged, Rating, sortedPageQuery, Uuid } from './common.js';
import { IMAGE_PATH_MAX } from './files.js';
import { TAG_NAME_MAX, TagDto } from './tag.js';
import { CHAPTERS_MAX, ChapterInput } from './chapter.js';
import { ReadingStatus } from './reading-status.js';

export const STORY_TITLE_MAX = 255;
export const STORY_DESCRIPTION_MAX = 1000;
/** `authorName` and `seriesName` in a story body: at most 255 (docs/decisions.md, "Shapes and values"). */
export const LINKED_NAME_MAX = 255;
/**
 * Tags one story may carry (docs/decisions.md, "Validation"): far above any real use, and small enough
 * that one body cannot hold up the server (20,000 names stalled every request for seconds).
 */
export const STORY_TAG_NAMES_MAX = 100;

export const STORY_STATUSES = ['complete', 'in-progress'] as const;
/** The source's completion of the work (docs/decisions.md, "Chapters"). */
export const StoryStatus = Type.Union(STORY_STATUSES.map((status) => Type.Literal(status)));
/** BCP 47, as `en`, `pt-BR`, `zh-Hant-TW`: a language subtag and up to a few more. */
export const LanguageTag = Type.String({ pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,6}$', maxLength: 35 });
/** Authors one story may name: AO3's largest works have a few dozen co-creators. */
export const STORY_AUTHORS_MAX = 50;

export const StoryDto = Type.Object({
  id: Uuid,
  title: Type.String(),
  summary: Nullable(Type.String()),
  description: Nullable(Type.String()),
  contentHtml: Nullable(Type.String()),
  contentPlain: Nullable(Type.String()),
  sourceUrl: Nullable(Type.String()),
  coverPath: Nullable(Type.String()),
  wordCount: Type.Integer(),
  rating: Nullable(Type.Integer()),
  volume: Nullable(Type.Integer()),
  authorId: Nullable(Uuid),
  authorName: Nullable(Type.String()),
  seriesId: Nullable(Uuid),
  seriesName: Nullable(Type.String()),
  tags: Type.Array(TagDto, { description: 'Sorted by name' }),
  createdAt: DateTime,
  updatedAt: DateTime,
  chapterCount: Type.Integer({ minimum: 1 }),
  status: Nullable(StoryStatus),
  publishedAt: Nullable(DateTime),
  sourceUpdatedAt: Nullable(DateTime),
  language: Nullable(Type.String()),
  authors: Type.Array(Type.Object({ id: Uuid, name: Type.String() }), { description: 'Every author in order; authors[0] is authorId/authorName' }),
  chaptersAddedAt: Nullable(DateTime),
  readingStatus: Nullable(ReadingStatus),
  finishedAt: Nullable(DateTime),
  readCount: Type.Integer({ minimum: 0 }),
  favourite: Type.Boolean(),
});
export type StoryDto = Static<typeof StoryDto>;

export const StoryPage = Paged(StoryDto);
export const StoryList = Type.Array(StoryDto);

export const STORY_SORT_KEYS = ['createdAt', 'updatedAt', 'title', 'rating', 'wordCount', 'authorName', 'seriesName', 'volume'] as const;
export type StorySortKey = (typeof STORY_SORT_KEYS)[number];

/** `GET /api/stories` and the scoped lists by author and by tag (same sorts: docs/decisions.md, "Lists and pagination"). */
export const StoryListQuery = sortedPageQuery(STORY_SORT_KEYS);
export type StoryListQuery = Static<typeof StoryListQuery>;

/** `recent` and `top-rated`: limit 1 to 100, default 10 (docs/api.md, "Lists and paging"). */
export const StoryLimitQuery = limitQuery(10);
export type StoryLimitQuery = Static<typeof StoryLimitQuery>;

export const StoryTagParams = Type.Object({ id: Uuid, tagId: Uuid });
export type StoryTagParams = Static<typeof StoryTagParams>;

export const AuthorScopeParams = Type.Object({ authorId: Uuid });
export type AuthorScopeParams = Static<typeof AuthorScopeParams>;

export const SeriesScopeParams = Type.Object({ seriesId: Uuid });
export type SeriesScopeParams = Static<typeof SeriesScopeParams>;

export const TagNameParams = Type.Object({ tagName: Type.String({ minLength: 1 }) });
export type TagNameParams = Static<typeof TagNameParams>;

const Title = Type.String({ maxLength: STORY_TITLE_MAX });
const LinkedName = Type.String({ maxLength: LINKED_NAME_MAX });

/**
 * Fields shared by create and update. `null` is accepted everywhere a DTO field is nullable: on
 * create it means unset, on update it clears (docs/decisions.md, "Shapes and values"). Blank
 * names and titles are checked by the service, which can say which field is blank.
 */
const storyFields = {
  summary: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Nullable(Type.String({ maxLength: STORY_DESCRIPTION_MAX }))),
  contentHtml: Type.Optional(Nullable(Type.String())),
  sourceUrl: Type.Optional(Nullable(HttpUrl)),
  volume: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))),
  rating: Type.Optional(Nullable(Rating)),
  authorId: Type.Optional(Nullable(Uuid)),
  authorName: Type.Optional(Nullable(LinkedName)),
  seriesId: Type.Optional(Nullable(Uuid)),
  seriesName: Type.Optional(Nullable(LinkedName)),
  tagNames: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: TAG_NAME_MAX }), { maxItems: STORY_TAG_NAMES_MAX }))),
  /** The whole work as chapters, instead of `contentHtml` (docs/api.md, "Chapters — /api/stories/{id}/chapters"): replaces every chapter. */
  chapters: Type.Optional(Type.Array(ChapterInput, { minItems: 1, maxItems: CHAPTERS_MAX })),
  /** Every author in order, instead of authorId/authorName; the first is `authorId`. */
  authorNames: Type.Optional(Type.Array(LinkedName, { minItems: 1, maxItems: STORY_AUTHORS_MAX })),
  status: Type.Optional(Nullable(StoryStatus)),
  publishedAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  sourceUpdatedAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  language: Type.Optional(Nullable(LanguageTag)),
  /**
   * docs/decisions.md, "Images": an image uploaded earlier through `/api/files/upload/cover`, as
   * `covers/<file>`; it must exist (else 400). `null` removes the cover.
   */
  coverPath: Type.Optional(Nullable(Type.String({ maxLength: IMAGE_PATH_MAX }))),
};

/**
 * The create body (docs/api.md, "Fields › Story create and update body"); `rating` is accepted
 * too (docs/decisions.md, "Shapes and values").
 */
export const StoryCreateBody = Type.Object({ title: Title, ...storyFields });
export type StoryCreateBody = Static<typeof StoryCreateBody>;

/** The update body (docs/api.md, "Fields › Story create and update body"): every field optional; absent = untouched, `null` = cleared. */
export const StoryUpdateBody = Type.Object({ title: Type.Optional(Title), ...storyFields });
export type StoryUpdateBody = Static<typeof StoryUpdateBody>;

export const StoryRatingBody = Type.Object({ rating: Rating });
export type StoryRatingBody = Static<typeof StoryRatingBody>;

/** 200 of `POST /api/stories/{id}/cover` (docs/api.md, "Stories — /api/stories"): `coverUrl` is `/api/files/images/<coverPath>`. */
export const CoverResponse = Type.Object({
  message: Type.String(),
  coverPath: Type.String({ description: 'covers/<file>' }),
  coverUrl: Type.String({ description: '/api/files/images/covers/<file>' }),
});
export type CoverResponse = Static<typeof CoverResponse>;
