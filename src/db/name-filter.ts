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

/** The WHERE of a page of {@link NamedListFilter} (`undefined`: every row) and the key of its statement shape. */
export function namedListWhere(columns: { nameKey: SQLiteColumn; storyCount: SQLiteColumn }, filter: NamedListFilter): { where: SQL | undefined; shape: string } {
  const filtered = filter.nameContains !== undefined;
  const withStories = filter.withStories === true;
  const parts = [nameKeyContains(columns.nameKey, filtered), withStories ? sql`${columns.storyCount} > 0` : undefined].filter((part): part is SQL => part !== undefined);
  return { where: parts.length === 0 ? undefined : sql.join(parts, sql` AND `), shape: `${filtered ? 'name' : 'all'}${withStories ? ':used' : ''}` };
}
