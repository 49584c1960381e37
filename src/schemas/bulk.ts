/**
 * The bulk edit's contract (docs/api.md, "Bulk edit — /api/stories/bulk"; docs/decisions.md,
 * "Bulk edit"): many stories changed, or deleted, in one transaction.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Rating, Uuid } from './common.js';
import { ReadingStatus } from './reading-status.js';
import { LINKED_NAME_MAX, STORY_TAG_NAMES_MAX } from './story.js';
import { TAG_NAME_MAX } from './tag.js';

/** Stories one bulk edit changes at most: a few pages of the library, one transaction of bounded length. */
export const BULK_IDS_MAX = 500;
/** Shelves one bulk edit adds its stories to (or takes them off) at most. */
export const BULK_SHELVES_MAX = 100;

const BulkLinks = Type.Object({
  tagNames: Type.Optional(Type.Array(Type.String({ maxLength: TAG_NAME_MAX }), { maxItems: STORY_TAG_NAMES_MAX, description: 'Found case-insensitively; added ones are created when missing' })),
  shelfIds: Type.Optional(Type.Array(Uuid, { maxItems: BULK_SHELVES_MAX, description: 'Manual shelves' })),
});

export const BulkEditBody = Type.Object({
  ids: Type.Array(Uuid, { minItems: 1, maxItems: BULK_IDS_MAX, description: `The stories, 1 to ${BULK_IDS_MAX}; a repeated id counts once` }),
  add: Type.Optional(BulkLinks),
  remove: Type.Optional(BulkLinks),
  set: Type.Optional(
    Type.Object({
      authorName: Type.Optional(Nullable(Type.String({ maxLength: LINKED_NAME_MAX }))),
      seriesName: Type.Optional(Nullable(Type.String({ maxLength: LINKED_NAME_MAX }))),
      readingStatus: Type.Optional(Nullable(ReadingStatus)),
      favourite: Type.Optional(Type.Boolean()),
      rating: Type.Optional(Nullable(Rating)),
    }),
  ),
  delete: Type.Optional(Type.Literal(true, { description: 'Delete the stories (alone: not with add, remove or set)' })),
});
export type BulkEditBody = Static<typeof BulkEditBody>;

export const BulkEditResult = Type.Object({
  message: Type.String(),
  storyCount: Type.Integer({ description: 'The stories changed (or deleted)' }),
});
export type BulkEditResult = Static<typeof BulkEditResult>;
