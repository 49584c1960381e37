import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/transaction.js';
import { authors, type AuthorRow } from '../db/schema.js';
import { newId, nowIso } from '../lib/clock.js';
import { cleanName, nameKey } from '../lib/names.js';

export function findAuthorById(db: DbOrTx, id: string): AuthorRow | undefined {
  return db.select().from(authors).where(eq(authors.id, id)).get();
}

/** Case-insensitive (after trimming) exact-name lookup, through the unique `name_key`. */
export function findAuthorByName(db: DbOrTx, name: string): AuthorRow | undefined {
  return db.select().from(authors).where(eq(authors.nameKey, nameKey(name))).get();
}

export function insertAuthor(db: DbOrTx, values: { name: string; notes?: string | null }): AuthorRow {
  const now = nowIso();
  return db
    .insert(authors)
    .values({ id: newId(), name: cleanName(values.name), nameKey: nameKey(values.name), notes: values.notes ?? null, createdAt: now, updatedAt: now })
    .returning()
    .get();
}

/** The author with this name (case-insensitively), created when there is none (spec 4.2 rule 2). */
export function findOrCreateAuthor(db: DbOrTx, name: string): AuthorRow {
  return findAuthorByName(db, name) ?? insertAuthor(db, { name });
}
