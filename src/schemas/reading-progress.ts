/**
 * The reading-progress contracts (docs/api.md, "Stories — /api/stories"; the rules in
 * docs/decisions.md, "Reading progress"): the saved position of one story, the body that saves
 * it, and the continue-reading list's query.
 */
import { Type, type Static } from '@sinclair/typebox';
import { limitQuery, Nullable, Uuid } from './common.js';
import { CHAPTERS_MAX } from './chapter.js';

/** Longest `position` kept: a locator, not a document (docs/decisions.md, "Reading progress"). */
export const READING_POSITION_MAX = 1000;

/** From this fraction on a story counts as finished and leaves continue-reading. */
export const FINISHED_PROGRESS = 0.98;

const Progress = Type.Number({ minimum: 0, maximum: 1, description: 'The fraction of the whole work read (every chapter): 0 at the top, 1 at the end' });
const Chapter = Type.Integer({ minimum: 1, maximum: CHAPTERS_MAX, description: 'The chapter being read, 1-based (at most the story\'s chapterCount)' });
const Position = Nullable(
  Type.String({ maxLength: READING_POSITION_MAX, description: "The reader's opaque locator (a paragraph index, say); stored and returned as sent" }),
);

export const ReadingProgressDto = Type.Object({
  storyId: Uuid,
  progress: Progress,
  position: Position,
  /** null when the last save did not say (a client from before chapters, KOReader sync) or nothing was saved. */
  chapter: Nullable(Chapter),
  updatedAt: Nullable(Type.String({ format: 'date-time', description: 'When the progress was last saved (ISO 8601 UTC with milliseconds); null when it never was' })),
});
export type ReadingProgressDto = Static<typeof ReadingProgressDto>;

/**
 * `PUT /api/stories/{id}/progress`: `progress` and `position` required (`position` may be null: no
 * locator); `chapter` optional, so clients from before chapters keep working (stored as null).
 */
export const ReadingProgressBody = Type.Object({ progress: Progress, position: Position, chapter: Type.Optional(Chapter) });
export type ReadingProgressBody = Static<typeof ReadingProgressBody>;

/** `GET /api/stories/continue-reading`: `limit` 1 to 100, default 10, like the other fixed lists (docs/api.md, "Lists and paging"). */
export const ContinueReadingQuery = limitQuery(10);
export type ContinueReadingQuery = Static<typeof ContinueReadingQuery>;
