/**
 * The Typesense outbox (docs/decisions.md, "Search"; docs/typesense.md): a durable queue of the
 * stories and authors whose Typesense documents must be brought up to date, in the library database
 * itself.
 *
 * - Rows are written in the same SQLite transaction as the change (the sync step calls
 *   {@link enqueueChanges} through the engine's `documentsChanged`), so a committed change always
 *   has its row and a rolled-back one never does.
 * - One row per entity: a second change before delivery bumps `version` instead of adding a row.
 *   The row names the entity, not its content; the worker reads the current row when it delivers.
 * - A row is deleted only with the version that was delivered ({@link recordOutcome}), so a change
 *   made while its delivery was in flight stays queued and goes out again.
 * - A row Typesense refused gets an exponential backoff with jitter ({@link backoffMs}).
 */
import type Database from 'better-sqlite3';
import type { Db, DbOrTx } from '../../db/open.js';
import { defineStatements, sqliteClient } from '../../db/statements.js';
import { bookkeepingTransaction } from '../../db/bookkeeping.js';
import type { SearchChanges } from '../engine.js';

export type OutboxKind = 'story' | 'author';

export interface OutboxRow {
  id: number;
  kind: OutboxKind;
  entityId: string;
  version: number;
  attempts: number;
}

/** First retry after 0.5-1 s, doubling up to {@link BACKOFF_CAP_MS}. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 5 * 60 * 1000;
/** Rows refused this many times no longer count as "behind" (see {@link oldestFreshChange}). */
export const STUCK_AFTER_ATTEMPTS = 3;

/**
 * The wait before attempt `attempts + 1`: "equal jitter", half the exponential delay plus a
 * random part of the other half, so many rows failing together do not retry in lockstep.
 */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const delay = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(delay / 2 + random() * (delay / 2));
}

const statementsFor = defineStatements((client: Database.Database) => ({
  enqueue: client.prepare<{ kind: OutboxKind; entityId: string; now: number }>(
    `INSERT INTO search_outbox (kind, entity_id, enqueued_at, next_attempt_at) VALUES (@kind, @entityId, @now, @now)
     ON CONFLICT (kind, entity_id) DO UPDATE SET version = version + 1, next_attempt_at = excluded.next_attempt_at`,
  ),
  due: client.prepare<[number, number, number], OutboxRow>(
    `SELECT id, kind, entity_id AS entityId, version, attempts FROM search_outbox
     WHERE id > ? AND next_attempt_at <= ? ORDER BY id LIMIT ?`,
  ),
  delivered: client.prepare<[number, number]>('DELETE FROM search_outbox WHERE id = ? AND version = ?'),
  failed: client.prepare<{ id: number; version: number; error: string; next: number }>(
    `UPDATE search_outbox SET attempts = attempts + 1, last_error = @error,
       next_attempt_at = CASE WHEN version = @version THEN @next ELSE next_attempt_at END
     WHERE id = @id`,
  ),
  count: client.prepare('SELECT count(*) FROM search_outbox').pluck(),
  nextAttempt: client.prepare('SELECT min(next_attempt_at) FROM search_outbox').pluck(),
  oldestFresh: client.prepare<[number]>('SELECT min(enqueued_at) FROM search_outbox WHERE attempts < ?').pluck(),
  retryNow: client.prepare<[number, number]>('UPDATE search_outbox SET next_attempt_at = ? WHERE next_attempt_at > ?'),
}));

/**
 * Queues the changed stories and authors, inside the caller's transaction (synchronous, never
 * fails for anything but the database). Deleted entities are queued like any other: the worker
 * finds no row and deletes the document.
 */
export function enqueueChanges(tx: DbOrTx, changes: SearchChanges, now = Date.now()): void {
  const s = statementsFor(sqliteClient(tx));
  for (const story of changes.stories) s.enqueue.run({ kind: 'story', entityId: story.id, now });
  for (const author of changes.authors) s.enqueue.run({ kind: 'author', entityId: author.id, now });
}

/** Rows due by `dueBy` with an id above `after`, oldest first (`dueBy` Infinity: every row). */
export function dueRows(db: Db, after: number, dueBy: number, limit: number): OutboxRow[] {
  return statementsFor(db.$client).due.all(after, Number.isFinite(dueBy) ? dueBy : Number.MAX_SAFE_INTEGER, limit);
}

export interface DeliveryOutcome {
  delivered: OutboxRow[];
  failed: { row: OutboxRow; error: string }[];
}

/**
 * Records one batch's outcome in one transaction: confirmed rows go (only at the version that was
 * sent), refused rows get their attempt counted, the error kept and the next attempt pushed back.
 */
export function recordOutcome(db: Db, outcome: DeliveryOutcome, now = Date.now(), random: () => number = Math.random): void {
  const s = statementsFor(db.$client);
  bookkeepingTransaction(db, () => {
    for (const row of outcome.delivered) s.delivered.run(row.id, row.version);
    for (const { row, error } of outcome.failed) {
      s.failed.run({ id: row.id, version: row.version, error: error.slice(0, 1000), next: now + backoffMs(row.attempts + 1, random) });
    }
  });
}

/** How many changes wait for Typesense (the health endpoint's `pendingChanges`). */
export function pendingCount(db: Db): number {
  return Number(statementsFor(db.$client).count.get());
}

/** When the next row falls due, or undefined when the outbox is empty. */
export function nextAttemptAt(db: Db): number | undefined {
  const value = statementsFor(db.$client).nextAttempt.get();
  return value === null || value === undefined ? undefined : Number(value);
}

/**
 * When the oldest change that is still expected to go through was made (rows refused
 * {@link STUCK_AFTER_ATTEMPTS} times are left out, so one document Typesense keeps refusing does
 * not count as the whole index being behind), or undefined when there is none.
 */
export function oldestFreshChange(db: Db): number | undefined {
  const value = statementsFor(db.$client).oldestFresh.get(STUCK_AFTER_ATTEMPTS);
  return value === null || value === undefined ? undefined : Number(value);
}

/** Makes every waiting row due now (Typesense is back: no reason to sit out the backoff). */
export function retryAllNow(db: Db, now = Date.now()): void {
  statementsFor(db.$client).retryNow.run(now, now);
}

/**
 * Per-connection triggers that mark a story or author for its search documents when something
 * only the Typesense document shows changes: a story's rating, volume, cover, source URL, word
 * count, `updatedAt` or the reader's state (which changes without `updatedAt`, docs/decisions.md,
 * "Reading status"); an author's rating, avatar, story ratings or `updatedAt`. (The embedded
 * index's own triggers, drizzle/0002, cover the text and names.) They are TEMP triggers, created
 * only when Typesense is configured, so a library without Typesense does exactly the work it
 * did before; marked rows flow through the one sync step into {@link enqueueChanges}. An author
 * is marked 'author-attrs' (drizzle/0006): none of these fields is in its embedded FTS document.
 * A tag whose kind changes (docs/decisions.md, "Tag kinds") marks each of its stories
 * 'story-attrs' (../embedded/sync.ts): their documents' kind fields (`fandoms`, …) change, their
 * embedded FTS documents, which hold no kind, do not.
 */
export function installOutboxTriggers(db: Db): void {
  db.$client.exec(`
    CREATE TEMP TRIGGER IF NOT EXISTS typesense_stories_after_update AFTER UPDATE ON main.stories
    WHEN OLD.rating IS NOT NEW.rating OR OLD.volume IS NOT NEW.volume OR OLD.cover_path IS NOT NEW.cover_path
      OR OLD.source_url IS NOT NEW.source_url OR OLD.word_count IS NOT NEW.word_count OR OLD.updated_at IS NOT NEW.updated_at
      OR OLD.reading_status IS NOT NEW.reading_status OR OLD.finished_at IS NOT NEW.finished_at
      OR OLD.read_count IS NOT NEW.read_count OR OLD.favourite IS NOT NEW.favourite
    BEGIN
      INSERT OR IGNORE INTO search_dirty (kind, ref, uid) VALUES ('story', NEW.seq, NEW.id);
    END;
    CREATE TEMP TRIGGER IF NOT EXISTS typesense_tags_after_kind_update AFTER UPDATE OF kind ON main.tags
    WHEN OLD.kind IS NOT NEW.kind
    BEGIN
      INSERT OR IGNORE INTO search_dirty (kind, ref, uid)
        SELECT 'story-attrs', s.seq, s.id FROM story_tags st JOIN stories s ON s.id = st.story_id WHERE st.tag_id = NEW.id;
    END;
    CREATE TEMP TRIGGER IF NOT EXISTS typesense_authors_after_update AFTER UPDATE ON main.authors
    WHEN OLD.rating IS NOT NEW.rating OR OLD.avatar_image_path IS NOT NEW.avatar_image_path
      OR OLD.rating_sum IS NOT NEW.rating_sum OR OLD.rated_story_count IS NOT NEW.rated_story_count
      OR OLD.updated_at IS NOT NEW.updated_at
    BEGIN
      INSERT OR IGNORE INTO search_dirty (kind, ref, uid) VALUES ('author-attrs', NEW.seq, NEW.id);
    END;
  `);
}
