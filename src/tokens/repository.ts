/**
 * Queries for device tokens (docs/decisions.md, "Device tokens"): the `api_tokens` table, looked
 * up by the hash of a presented secret on every request that brings one.
 */
import { desc, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/open.js';
import { apiTokens } from '../db/schema.js';
import { defineStatements } from '../db/statements.js';

export type TokenRow = typeof apiTokens.$inferSelect;

const byHash = defineStatements((db: Db) => db.select().from(apiTokens).where(eq(apiTokens.hash, sql.placeholder('hash'))).prepare());
const byKosyncKey = defineStatements((db: Db) =>
  db.select().from(apiTokens).where(eq(apiTokens.kosyncKeyHash, sql.placeholder('hash'))).prepare(),
);
const touch = defineStatements((db: Db) =>
  db
    .update(apiTokens)
    .set({ lastUsedAt: sql`${sql.placeholder('at')}` })
    .where(eq(apiTokens.id, sql.placeholder('id')))
    .prepare(),
);

export function findTokenByHash(db: Db, hash: string): TokenRow | undefined {
  return byHash(db).get({ hash });
}

export function findTokenByKosyncKey(db: Db, hash: string): TokenRow | undefined {
  return byKosyncKey(db).get({ hash });
}

/** Newest first; the count is bounded when tokens are made (MAX_TOKENS in service.ts). */
export function listTokens(db: Db): TokenRow[] {
  return db.select().from(apiTokens).orderBy(desc(apiTokens.createdAt), desc(apiTokens.id)).all();
}

export function countTokens(tx: Tx): number {
  return tx.select({ n: sql<number>`count(*)` }).from(apiTokens).get()?.n ?? 0;
}

export function insertToken(tx: Tx, row: TokenRow): void {
  tx.insert(apiTokens).values(row).run();
}

/** True when a row was deleted. */
export function deleteToken(tx: Tx, id: string): boolean {
  return tx.delete(apiTokens).where(eq(apiTokens.id, id)).run().changes > 0;
}

/** One statement, so atomic on its own: a stamp, not part of any other write. */
export function touchToken(db: Db, id: string, at: string): void {
  touch(db).run({ id, at });
}
