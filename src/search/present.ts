import type { ReadingStatus } from '../schemas/reading-status.js';
import type { SearchFacets, StorySearchDto } from '../schemas/search.js';
import type { TagKind } from '../schemas/tag.js';
import { READING_STATUSES, TAG_KINDS } from '../schemas/values.js';

/** A story as phase 2 of a search reads it: the DTO's columns, plus the text for its snippet. */
export interface StoryHitRow {
  seq: number;
  id: string;
  title: string;
  summary: string | null;
  authorId: string | null;
  authorName: string | null;
  seriesId: string | null;
  seriesName: string | null;
  volume: number | null;
  rating: number | null;
  wordCount: number;
  coverPath: string | null;
  sourceUrl: string | null;
  createdAt: string;
  updatedAt: string;
  readingStatus: ReadingStatus | null;
  finishedAt: string | null;
  readCount: number;
  /** SQLite's 0 or 1. */
  favourite: number;
  description?: string | null;
  contentPlain?: string | null;
}

/** A search hit as the API shows it (StorySearchDto, docs/decisions.md, "Search"). */
export function presentStoryHit(row: StoryHitRow, tagNames: string[], snippet: string | null, chapter: StorySearchDto['chapter'] = null): StorySearchDto {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    authorId: row.authorId,
    authorName: row.authorName,
    seriesId: row.seriesId,
    seriesName: row.seriesName,
    volume: row.volume,
    rating: row.rating,
    wordCount: row.wordCount,
    coverPath: row.coverPath,
    sourceUrl: row.sourceUrl,
    tagNames,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    readingStatus: row.readingStatus,
    finishedAt: row.finishedAt,
    readCount: row.readCount,
    favourite: row.favourite === 1,
    snippet,
    chapter,
  };
}

/** Puts reading-status facet counts in the statuses' own order, as both engines answer them. */
export function sortReadingStatuses(counts: { readingStatus: ReadingStatus }[]): void {
  counts.sort((a, b) => READING_STATUSES.indexOf(a.readingStatus) - READING_STATUSES.indexOf(b.readingStatus));
}

/** Every tag kind's facet values (docs/decisions.md, "Search facets"), each from `valuesOf`: [] unless given, for an engine to fill. */
export function kindFacets(valuesOf: (kind: TagKind) => SearchFacets['tags'] = () => []): SearchFacets['tagKinds'] {
  return Object.fromEntries(TAG_KINDS.map((kind) => [kind, valuesOf(kind)])) as SearchFacets['tagKinds'];
}

/** True for a tag kind's name (a facet row or a stored kind). */
export function isTagKind(value: string): value is TagKind {
  return (TAG_KINDS as readonly string[]).includes(value);
}
