import type { StorySearchDto } from '../schemas/search.js';

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
  description?: string | null;
  contentPlain?: string | null;
}

/** A search hit as the API shows it (StorySearchDto, docs/decisions.md, "Search"). */
export function presentStoryHit(row: StoryHitRow, tagNames: string[], snippet: string | null): StorySearchDto {
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
    snippet,
  };
}
