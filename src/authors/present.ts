import type { AuthorRow } from '../db/schema.js';
import type { AuthorDto } from '../schemas/author.js';

/**
 * An author row and its URLs as the API shows them (docs/api.md, "Fields › Author").
 * `averageStoryRating` comes from the trigger-maintained sum and count, never from counting
 * stories.
 */
export function presentAuthor(row: AuthorRow, urls: readonly string[]): AuthorDto {
  return {
    id: row.id,
    name: row.name,
    notes: row.notes,
    avatarImagePath: row.avatarImagePath,
    authorRating: row.rating,
    averageStoryRating: row.ratedStoryCount === 0 ? null : row.ratingSum / row.ratedStoryCount,
    urls: [...urls],
    storyCount: row.storyCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
