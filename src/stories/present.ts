import type { StoryRow, TagRow } from '../db/schema.js';
import type { StoryDto } from '../schemas/story.js';
import { presentTag } from '../tags/present.js';

/** A story row with the names of its author and series, as the read queries load it. */
export type StoryWithNames = StoryRow & { authorName: string | null; seriesName: string | null };

/**
 * A story as the API shows it (spec 2.1): every field present, unset ones `null`, `tags` the
 * story's tags sorted by name (the caller passes them in that order).
 */
export function presentStory(row: StoryWithNames, tags: readonly TagRow[]): StoryDto {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    description: row.description,
    contentHtml: row.contentHtml,
    contentPlain: row.contentPlain,
    sourceUrl: row.sourceUrl,
    coverPath: row.coverPath,
    wordCount: row.wordCount,
    rating: row.rating,
    volume: row.volume,
    authorId: row.authorId,
    authorName: row.authorName,
    seriesId: row.seriesId,
    seriesName: row.seriesName,
    tags: tags.map(presentTag),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
