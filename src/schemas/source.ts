import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from './common.js';
import { StoryDto } from './story.js';

/** One update a story received from its source (docs/api.md, "Following a source"). */
export const StoryUpdateDto = Type.Object({
  id: Type.Integer(),
  at: DateTime,
  origin: Type.Union([Type.Literal('import'), Type.Literal('refresh'), Type.Literal('schedule'), Type.Literal('file')], {
    description: 'What brought the update: the first import, a refresh asked for, a scheduled check, or a file imported again',
  }),
  sourceUrl: Nullable(Type.String()),
  addedChapters: Type.Integer({ minimum: 0 }),
  updatedChapters: Type.Integer({ minimum: 0 }),
  keptChapters: Type.Integer({ minimum: 0, description: 'Chapters whose new text was empty or under a tenth of the old: the old text was kept' }),
  goneChapters: Type.Integer({ minimum: 0, description: 'Chapters the source no longer has: marked, kept' }),
  details: Type.Object({
    added: Type.Array(Type.String()),
    updated: Type.Array(Type.String()),
    kept: Type.Array(Type.String()),
    gone: Type.Array(Type.String()),
  }),
});
export type StoryUpdateDto = Static<typeof StoryUpdateDto>;

export const StoryUpdateList = Type.Object({ updates: Type.Array(StoryUpdateDto) });

export const StoryUpdatesQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) });

/** What a refresh changed: the answer of `POST /api/stories/{id}/refresh`, or its job's `result`. */
const refreshCounts = {
  result: Type.Union([Type.Literal('updated'), Type.Literal('unchanged')]),
  addedChapters: Type.Integer({ minimum: 0 }),
  updatedChapters: Type.Integer({ minimum: 0 }),
  keptChapters: Type.Integer({ minimum: 0 }),
  goneChapters: Type.Integer({ minimum: 0 }),
};

/** `POST /api/stories/{id}/refresh` when it ran at once. */
export const RefreshResult = Type.Object({ ...refreshCounts, story: StoryDto });

/** The `result` of a refresh that ran as a job (a story following a FanFicFare source): the same counts, and the story's id. */
export const RefreshJobResult = Type.Object({ storyId: Uuid, ...refreshCounts });
export type RefreshJobResult = Static<typeof RefreshJobResult>;
