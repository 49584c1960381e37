/**
 * The reading-status contracts (docs/api.md, "Stories — /api/stories"; the rules in
 * docs/decisions.md, "Reading status"): the reader's own state of a story, set by hand with these
 * bodies or by reading (src/stories/reading-status.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { READING_STATUSES } from './values.js';

export { READING_STATUSES };
export type ReadingStatus = (typeof READING_STATUSES)[number];

/** One status; `Type.Unsafe` keeps the literal union as the static type and a plain enum in the OpenAPI document. */
export const ReadingStatus = Type.Unsafe<ReadingStatus>(Type.String({ enum: [...READING_STATUSES], description: `One of ${READING_STATUSES.join(', ')}` }));

/** `PUT /api/stories/{id}/reading-status`: `status` is required; null clears it. */
export const ReadingStatusBody = Type.Object({ status: Nullable(ReadingStatus) });
export type ReadingStatusBody = Static<typeof ReadingStatusBody>;

/** `PUT /api/stories/{id}/favourite`. */
export const FavouriteBody = Type.Object({ favourite: Type.Boolean() });
export type FavouriteBody = Static<typeof FavouriteBody>;
