/**
 * The name filter of the author, tag and series name searches (`/search?query=`: a
 * case-insensitive substring of the name) as a condition with the pattern as a placeholder, so
 * each list's statements are prepared once per shape (sort, direction, filtered or not) rather
 * than built per request: building and preparing them was a fifth of an authors page's CPU at
 * 100,000 stories (docs/performance.md, "Where each miss goes").
 */
import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { likeContains } from '../lib/names.js';

/** `name_key LIKE :pattern`, or no condition for an unfiltered list. */
export function nameKeyContains(nameKey: SQLiteColumn, filtered: boolean): SQL | undefined {
  return filtered ? sql`${nameKey} LIKE ${sql.placeholder('pattern')} ESCAPE '\\'` : undefined;
}

/** The placeholder values for {@link nameKeyContains}: `nameContains` is already folded with `nameKey`. */
export function nameKeyContainsParams(nameContains: string | undefined): { pattern?: string } {
  return nameContains === undefined ? {} : { pattern: likeContains(nameContains) };
}

/** What a list page of authors, series or tags keeps: a name filter, and whether only names some story uses. */
export interface NamedListFilter {
  /** Case-insensitive substring of the name, already folded with `nameKey`. */
  nameContains?: string;
  /** Only rows with `storyCount > 0` (the OPDS catalog: an empty author or tag leads to an empty feed). */
  withStories?: boolean;
}

/** The key of a page's statement shape for {@link NamedListFilter}: what {@link namedListWhere} builds differs by it alone. */
export function namedListShape(filter: NamedListFilter): string {
  return `${filter.nameContains !== undefined ? 'name' : 'all'}${filter.withStories === true ? ':used' : ''}`;
}

/**
 * The WHERE of a page of {@link NamedListFilter} (`undefined`: every row), built only when its
 * shape ({@link namedListShape}) is prepared, not on every request.
 */
export function namedListWhere(columns: { nameKey: SQLiteColumn; storyCount: SQLiteColumn }, filter: NamedListFilter): SQL | undefined {
  const used = filter.withStories === true ? sql`${columns.storyCount} > 0` : undefined;
  const parts = [nameKeyContains(columns.nameKey, filter.nameContains !== undefined), used].filter((part): part is SQL => part !== undefined);
  return parts.length === 0 ? undefined : sql.join(parts, sql` AND `);
}
