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
