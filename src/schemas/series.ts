/** Series contracts (docs/api.md, "Fields › Series" and "Tags — /api/tags and series — /api/series"). */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, limitQuery, Nullable, Paged, SearchText, sortedPageQuery, Uuid } from './common.js';

export const SERIES_NAME_MAX = 255;
export const SERIES_DESCRIPTION_MAX = 1000;

export const SeriesDto = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  storyCount: Type.Integer(),
  createdAt: DateTime,
});
export type SeriesDto = Static<typeof SeriesDto>;

export const SeriesPage = Paged(SeriesDto);

export const SERIES_SORT_KEYS = ['name', 'createdAt', 'storyCount'] as const;
export type SeriesSortKey = (typeof SERIES_SORT_KEYS)[number];

export const SeriesListQuery = sortedPageQuery(SERIES_SORT_KEYS);
export type SeriesListQuery = Static<typeof SeriesListQuery>;

/** `query` is a case-insensitive substring of the name; by name unless a sort is asked for. */
export const SeriesSearchQuery = sortedPageQuery(SERIES_SORT_KEYS, { query: SearchText });
export type SeriesSearchQuery = Static<typeof SeriesSearchQuery>;

export const SeriesWithStoriesQuery = limitQuery(20);
export const SeriesPopularQuery = limitQuery(10);

const SeriesName = Type.String({ maxLength: SERIES_NAME_MAX });
const SeriesDescription = Type.String({ maxLength: SERIES_DESCRIPTION_MAX });

/** `description: null` on create is taken as absent. */
export const SeriesCreateBody = Type.Object({
  name: SeriesName,
  description: Type.Optional(Nullable(SeriesDescription)),
});
export type SeriesCreateBody = Static<typeof SeriesCreateBody>;

/** Partial: absent fields are untouched; `description: null` clears it. */
export const SeriesUpdateBody = Type.Object({
  name: Type.Optional(SeriesName),
  description: Type.Optional(Nullable(SeriesDescription)),
});
export type SeriesUpdateBody = Static<typeof SeriesUpdateBody>;

export const SeriesStats = Type.Object({
  totalSeries: Type.Integer(),
  seriesWithStories: Type.Integer(),
  emptySeries: Type.Integer(),
});
export type SeriesStats = Static<typeof SeriesStats>;
