/**
 * `kosync_documents` (docs/decisions.md, "KOReader sync"): the last position KOReader sent for a
 * document, kept as sent. For a book Storyshelf did not make it is the only record; for a
 * Storyshelf book it lets a later GET hand back KOReader's own xpointer when the story's position
 * has not moved since.
 */
import { desc, eq, lt } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/open.js';
import { kosyncDocuments } from '../db/schema.js';

export type KosyncDocumentRow = typeof kosyncDocuments.$inferSelect;

export function findKosyncDocument(db: DbOrTx, document: string): KosyncDocumentRow | undefined {
  return db.select().from(kosyncDocuments).where(eq(kosyncDocuments.document, document)).get();
}

/** Stores the row whatever was there before (last write wins). */
export function saveKosyncDocument(tx: Tx, row: KosyncDocumentRow): void {
  tx.insert(kosyncDocuments)
    .values(row)
    .onConflictDoUpdate({ target: kosyncDocuments.document, set: { progress: row.progress, percentage: row.percentage, device: row.device, deviceId: row.deviceId, timestamp: row.timestamp } })
    .run();
}

/** Deletes the rows older than the `keep` newest (by `timestamp`, its index); rows sharing the edge's second stay. */
export function pruneKosyncDocuments(tx: Tx, keep: number): number {
  const edge = tx.select({ timestamp: kosyncDocuments.timestamp }).from(kosyncDocuments).orderBy(desc(kosyncDocuments.timestamp)).limit(1).offset(keep).get();
  if (edge === undefined) return 0;
  return tx.delete(kosyncDocuments).where(lt(kosyncDocuments.timestamp, edge.timestamp)).run().changes;
}
