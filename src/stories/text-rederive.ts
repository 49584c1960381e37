/**
 * Deriving the plain text and word count of stored stories again, after the plain-text rules
 * changed (docs/decisions.md, "Story HTML"). A migration lists the stories in
 * `story_text_rederive` (SQL cannot run the rules); the service works through that list after
 * start-up with the same code that derives a new story's text (src/html/story-text.ts).
 *
 * - **Safe to interrupt.** Each batch updates its stories and deletes their rows from the list in
 *   one write transaction, which also rebuilds their search documents (and, with Typesense,
 *   queues them in the outbox): a stop between batches leaves the rest listed for the next start,
 *   and a batch is either wholly done or not at all.
 * - **Bounded.** A batch reads at most {@link BATCH_STORIES} stories and {@link BATCH_HTML_CHARS}
 *   characters of HTML (at least one story), derives them outside the transaction one story per
 *   turn of the event loop, so requests are served in between.
 * - **Never stale.** A story whose HTML changed after it was read is left as that write stored
 *   it (it was derived by the current rules then); the update is skipped, the row still deleted.
 *   Its `updatedAt` never changes: the story itself did not.
 */
import type Database from 'better-sqlite3';
import { plainTextOf } from '../html/story-text.js';
import type { Db } from '../db/open.js';
import { defineStatements, sqliteClient } from '../db/statements.js';
import { writeTransaction } from '../db/transaction.js';

/** Stories a batch takes at most. */
export const BATCH_STORIES = 50;
/**
 * Characters of HTML a batch reads at most, whatever the stories' sizes: it bounds the memory
 * and the batch's transaction, which re-indexes the batch's text while it holds the write lock
 * (at 2 MB a batch held the event loop for seconds on a loaded 2-core machine).
 */
export const BATCH_HTML_CHARS = 512_000;

interface Listed {
  seq: number;
  html: string | null;
}

const statementsFor = defineStatements((client: Database.Database) => ({
  listed: client.prepare<[number], Listed>(
    `SELECT q.seq AS seq, s.content_html AS html FROM story_text_rederive q LEFT JOIN stories s ON s.seq = q.seq ORDER BY q.seq LIMIT ?`,
  ),
  update: client.prepare<[{ plain: string; words: number; seq: number; html: string }]>(
    `UPDATE stories SET content_plain = @plain, word_count = @words
     WHERE seq = @seq AND content_html = @html AND (content_plain IS NOT @plain OR word_count IS NOT @words)`,
  ),
  /**
   * The story's one chapter (docs/decisions.md, "Chapters"): every listed story was made before
   * chapters, so it is one untitled chapter holding the same HTML, which must read the same text.
   */
  updateChapter: client.prepare<[{ plain: string; words: number; seq: number; html: string }]>(
    `UPDATE story_chapters SET content_plain = @plain, word_count = @words
     WHERE story_id = (SELECT id FROM stories WHERE seq = @seq) AND position = 1 AND title = '' AND content_html = @html
       AND (content_plain IS NOT @plain OR word_count IS NOT @words)`,
  ),
  unlist: client.prepare<[number]>('DELETE FROM story_text_rederive WHERE seq = ?'),
}));

/** What one run did: rows taken off the list, stories whose text changed, and the time it took. */
export interface RederiveReport {
  listed: number;
  updated: number;
  ms: number;
}

/**
 * Derives one batch again, yielding to the event loop after each story's derivation; returns how
 * many listed rows it handled and updated (0 rows: the list is empty).
 */
export async function rederiveBatch(db: Db): Promise<{ listed: number; updated: number }> {
  const s = statementsFor(sqliteClient(db));
  const batch: Listed[] = [];
  let chars = 0;
  for (const row of s.listed.iterate(BATCH_STORIES)) {
    if (batch.length > 0 && chars + (row.html?.length ?? 0) > BATCH_HTML_CHARS) break;
    batch.push(row);
    chars += row.html?.length ?? 0;
  }
  if (batch.length === 0) return { listed: 0, updated: 0 };
  const derived: (ReturnType<typeof plainTextOf> | undefined)[] = [];
  for (const row of batch) {
    derived.push(row.html === null ? undefined : plainTextOf(row.html));
    await new Promise((resolve) => setImmediate(resolve));
  }
  let updated = 0;
  writeTransaction(db, (tx) => {
    const t = statementsFor(sqliteClient(tx));
    batch.forEach((row, index) => {
      const text = derived[index];
      if (row.html !== null && text !== undefined) {
        const values = { plain: text.contentPlain, words: text.wordCount, seq: row.seq, html: row.html };
        updated += t.update.run(values).changes;
        t.updateChapter.run(values);
      }
      t.unlist.run(row.seq);
    });
  });
  return { listed: batch.length, updated };
}

/** Works through the whole list, a batch per turn of the event loop, until it is empty or `signal` aborts. */
export async function rederiveStoryTexts(db: Db, signal: AbortSignal): Promise<RederiveReport> {
  const started = performance.now();
  const report = { listed: 0, updated: 0, ms: 0 };
  while (!signal.aborted) {
    const batch = await rederiveBatch(db);
    if (batch.listed === 0) break;
    report.listed += batch.listed;
    report.updated += batch.updated;
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}
