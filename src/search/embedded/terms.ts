/**
 * Keeps `search_terms`, the words typo correction may offer (./corrections.ts), close to the
 * story index's vocabulary (docs/decisions.md, "Typo tolerance") without slowing writes:
 *
 * - the sync step of every write adds the words of the stories' titles, author, series and tag
 *   names it indexes (about ten per story, `INSERT OR IGNORE`; {@link addNameTerms}), so a new
 *   title can be corrected to at once;
 * - body words (a 1,500-word story has several hundred distinct ones) come from the FTS5
 *   vocabulary, refreshed in the background ({@link refreshSearchTerms}) in chunks of
 *   {@link TERMS_CHUNK} terms, each its own short transaction, yielding between them: the table
 *   is updated in place (upsert of each chunk's terms, delete of the vanished ones in the chunk's
 *   key range), since a swap by rename would need a second table and so a migration.
 *
 * A word whose last story was deleted stays until the next refresh: it can only be offered as a
 * candidate that FTS5 then matches nothing with, so the cost is one wasted OR branch.
 */
import type Database from 'better-sqlite3';
import type { Db } from '../../db/open.js';
import { bookkeepingTransaction } from '../../db/bookkeeping.js';
import { defineStatements, sqliteClient } from '../../db/statements.js';
import { foldedWords } from '../text/words.js';
import { correctable } from '../text/typos.js';

/** Characters of the newest story's text {@link newestStoryTermsMissing} looks at (a few hundred words). */
const NEWEST_SAMPLE_CHARS = 4_000;

/** Vocabulary terms read per refresh transaction (worst chunk ~64 ms on a 1 M-term vocabulary). */
export const TERMS_CHUNK = 10_000;

/** The FTS5 vocabulary as a table: a temp virtual table of this connection (no schema change). */
const VOCAB = 'temp.search_terms_vocab';

const statementsFor = defineStatements((client: Database.Database) => ({
  addTerms: client.prepare<[string]>(`INSERT OR IGNORE INTO search_terms (term, docs) SELECT value, 1 FROM json_each(?)`),
  countTerms: client.prepare('SELECT count(*) FROM search_terms').pluck(),
  anyTerm: client.prepare('SELECT 1 FROM search_terms LIMIT 1').pluck(),
  anyStory: client.prepare('SELECT 1 FROM stories LIMIT 1').pluck(),
  countStories: client.prepare('SELECT count(*) FROM stories').pluck(),
  // The story written last (stories_updated_at_idx), the start of its text: what a refresh since would hold.
  newestText: client.prepare<[], string | null>(`SELECT substr(content_plain, 1, ${NEWEST_SAMPLE_CHARS}) FROM stories ORDER BY updated_at DESC LIMIT 1`).pluck(),
  anyMissing: client.prepare<[string]>('SELECT 1 FROM json_each(?) AS w WHERE NOT EXISTS (SELECT 1 FROM search_terms WHERE term = w.value) LIMIT 1').pluck(),
}));

/** Reads need only the vocabulary table, which a read-only connection may create (it lives in `temp`). */
const vocabReadFor = defineStatements((client: Database.Database) => {
  client.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${VOCAB} USING fts5vocab(main, stories_fts, row)`);
  return client.prepare<{ after: string; size: number }, VocabRow>(`SELECT term, doc AS docs FROM ${VOCAB} WHERE term > @after ORDER BY term LIMIT @size`);
});

export interface VocabRow {
  term: string;
  docs: number;
}

/**
 * The next `size` terms of the story index's vocabulary after `after`, with their document
 * counts. The costly half of a refresh (FTS5 walks each term's document list): a search-pool
 * read (./reads.ts), so it runs off the event loop. At 100,000 stories a chunk of 10,000 took up
 * to 575 ms, 2.7 s for the 7 chunks (docs/performance.md, "Typo tolerance and facets").
 */
export function readVocabChunk(db: Db, after: string, size: number): VocabRow[] {
  return vocabReadFor(sqliteClient(db)).all({ after, size });
}

const vocabStatementsFor = defineStatements((client: Database.Database) => {
  return {
    upsert: client.prepare<{ term: string; docs: number }>(
      'INSERT INTO search_terms (term, docs) VALUES (@term, @docs) ON CONFLICT (term) DO UPDATE SET docs = excluded.docs WHERE docs <> excluded.docs',
    ),
    removeVanished: client.prepare<{ after: string; last: string | null; kept: string }>(
      `DELETE FROM search_terms WHERE term > @after AND (@last IS NULL OR term <= @last)
         AND term NOT IN (SELECT value FROM json_each(@kept))`,
    ),
  };
});

/** Per connection: story documents the sync step rebuilt since the last refresh began, when the last was, and when that refresh began. */
interface WriteCount {
  writes: number;
  lastWriteMs: number;
  refreshStartedMs: number;
}
const writesSinceRefresh = new WeakMap<Database.Database, WriteCount>();

function countFor(client: Database.Database): WriteCount {
  let count = writesSinceRefresh.get(client);
  if (count === undefined) {
    count = { writes: 0, lastWriteMs: 0, refreshStartedMs: Date.now() };
    writesSinceRefresh.set(client, count);
  }
  return count;
}

/**
 * Adds the correctable words of these texts (titles and names) to `search_terms`, inside the
 * caller's write transaction; counts `storyWrites` toward the next refresh.
 */
export function addNameTerms(client: Database.Database, texts: readonly (string | null)[], storyWrites: number): void {
  const count = countFor(client);
  count.writes += storyWrites;
  if (storyWrites > 0) count.lastWriteMs = Date.now();
  const terms = new Set<string>();
  for (const text of texts) if (text !== null) for (const word of foldedWords(text)) if (correctable(word)) terms.add(word);
  if (terms.size > 0) statementsFor(client).addTerms.run(JSON.stringify([...terms]));
}

/** Share of the library that, rewritten since the last refresh, calls for a new one. */
export const REFRESH_SHARE = 0.05;

/**
 * A due refresh waits until writes have paused this long. A refresh reads the whole vocabulary
 * (2.7 s of a core at 100,000 stories) and upserts it on the write connection in chunks, so run
 * during a bulk import or a stream of creates it competed with the writes: 5 % of a 20,000-story
 * library is written in seconds, so every minute's check found one due, and independent create
 * runs measured anywhere from 165 to 330 creates/s. Body words of the new stories wait for the
 * pause (names and titles are terms at once).
 */
export const REFRESH_QUIET_MS = 10_000;

/** Writes that never pause still get a refresh this long after the last one began. */
export const REFRESH_DEFER_MAX_MS = 30 * 60_000;

/**
 * True when a refresh is due: the table is empty while stories exist (a library from before the
 * table, or a restored copy), or more than {@link REFRESH_SHARE} of the library was written since
 * the last refresh began and writes have paused for {@link REFRESH_QUIET_MS} (or have gone on for
 * {@link REFRESH_DEFER_MAX_MS}).
 */
export function termsRefreshDue(db: Db, nowMs = Date.now()): boolean {
  const client = sqliteClient(db);
  const s = statementsFor(client);
  if (s.anyStory.get() === undefined) return false;
  if (s.anyTerm.get() === undefined) return true;
  const { writes, lastWriteMs, refreshStartedMs } = countFor(client);
  if (writes === 0 || writes <= Number(s.countStories.get()) * REFRESH_SHARE) return false;
  return nowMs - lastWriteMs >= REFRESH_QUIET_MS || nowMs - refreshStartedMs >= REFRESH_DEFER_MAX_MS;
}

/**
 * True when a body word of the story written last is not a term: writes since the last refresh
 * that this process did not count. The count of writes is kept in memory, so a library written
 * by another process (a seed, a restore into a running copy) or by this one just before a restart
 * (in the 10 s before the quiet refresh) kept no body words until 5 % more of it was written:
 * typo correction then found 25 of 1,000 misspelt rare words on a freshly seeded 5,000-story
 * library (docs/decisions.md, "Typo tolerance"). Checked at start-up; reads one story.
 */
export function newestStoryTermsMissing(db: Db): boolean {
  const s = statementsFor(sqliteClient(db));
  const text = s.newestText.get();
  if (text === undefined || text === null) return false;
  const folded = foldedWords(text);
  // A sample cut at its limit may end inside a word, whose head is no term of any refresh.
  if (text.length >= NEWEST_SAMPLE_CHARS) folded.pop();
  const words = [...new Set(folded)].filter(correctable);
  return words.length > 0 && s.anyMissing.get(JSON.stringify(words)) !== undefined;
}

/** How many terms the table holds (tests and health). */
export function termCount(db: Db): number {
  return Number(statementsFor(sqliteClient(db)).countTerms.get());
}

export interface RefreshOptions {
  /** Checked between chunks: true stops the refresh (what is done stays; the rest is as it was). */
  stopped?: () => boolean;
  chunkSize?: number;
  /** Where a chunk of the vocabulary is read: the search pool, or in process (the default). */
  readChunk?: (after: string, size: number) => Promise<VocabRow[]> | VocabRow[];
}

/**
 * Brings `search_terms` in line with the story index's vocabulary (see the file comment): terms of
 * four letters or more with their document counts. Resolves to false when stopped early.
 */
export async function refreshSearchTerms(db: Db, options: RefreshOptions = {}): Promise<boolean> {
  const { stopped = () => false, chunkSize = TERMS_CHUNK, readChunk = (after, size) => readVocabChunk(db, after, size) } = options;
  const client = sqliteClient(db);
  const v = vocabStatementsFor(client);
  const count = countFor(client);
  count.writes = 0;
  count.refreshStartedMs = Date.now();
  for (let after = ''; ; ) {
    await new Promise((resolve) => setImmediate(resolve));
    if (stopped()) return false;
    // Read outside the write: a term added meanwhile waits for the next refresh (or came in
    // already by the sync step, for names); the upsert of the chunk is ~10 ms on the loop.
    const rows = await readChunk(after, chunkSize);
    if (stopped()) return false;
    const { last, full } = bookkeepingTransaction(db, () => {
      const kept = rows.filter((row) => correctable(row.term));
      for (const row of kept) v.upsert.run(row);
      const end = rows.length < chunkSize ? null : (rows[rows.length - 1] as { term: string }).term;
      v.removeVanished.run({ after, last: end, kept: JSON.stringify(kept.map((row) => row.term)) });
      return { last: end, full: rows.length === chunkSize };
    });
    if (!full || last === null) return true;
    after = last;
  }
}
