/**
 * `POST /api/search/reindex` for the embedded index: rebuilds every FTS document and suggestion
 * from the tables in batches, each its own short write transaction, and lets the event loop run
 * between them. The first version did it all in one transaction: ~2 minutes at 100,000 stories
 * during which the service answered nothing at all.
 *
 * The first step empties the index; then each batch indexes the next {@link REBUILD_BATCH} rows,
 * so a search during a rebuild finds the part rebuilt so far (and everything written meanwhile).
 * A version that kept the old documents and replaced them batch by batch was measured at 3x the
 * total time: deleting documents from a full FTS5 index rewrites its big segments over and over.
 * Writes that land between batches index their own documents as always; a batch that reaches
 * them later rebuilds them from the same rows. At the end the FTS segments are merged a few
 * thousand pages per transaction, as `optimize` would in one.
 */
import type Database from 'better-sqlite3';
import { ServiceUnavailable } from '../../errors.js';
import type { Db, Tx } from '../../db/open.js';
import { bookkeepingTransaction } from '../../db/bookkeeping.js';
import { defineStatements, sqliteClient } from '../../db/statements.js';
import { clearSuggestions } from './suggestions.js';
import { rebuildDirty } from './sync.js';

/** Rows per rebuild transaction: ~0.1-0.3 s of work at 1,500-word stories. */
export const REBUILD_BATCH = 200;
/** FTS5 pages merged per transaction at the end (`merge` with a negative count: down to one segment). */
const MERGE_PAGES = 2000;

/**
 * The app began to close during a rebuild: finished batches stay, the rest of the index is left
 * as it was (every document in it is still a whole one). The request gets a 503.
 */
export class RebuildInterrupted extends ServiceUnavailable {
  constructor() {
    super('The search index rebuild was interrupted by a shutdown; ask for it again once the service is back');
  }
}

/** What a rebuild walks, batch by batch, in this order: each table, its key, its mark. */
const SOURCES = [
  { table: 'stories', key: 'seq', mark: `'story', seq, id` },
  { table: 'authors', key: 'seq', mark: `'author', seq, id` },
  { table: 'series', key: 'id', mark: `'series', id, id` },
  { table: 'tags', key: 'id', mark: `'tag', id, id` },
] as const;

type Key = number | string;

const statementsFor = defineStatements((client: Database.Database) => ({
  // Per source: the next batch's last key and size, then marking that batch for the sync step.
  // (Not INSERT ... RETURNING: a row already marked would be left out and end the walk early.)
  batches: SOURCES.map(({ table, key, mark }) => ({
    start: (key === 'seq' ? 0 : '') as Key,
    end: client.prepare<{ after: Key; size: number }, { last: Key | null; rows: number }>(
      `SELECT max(${key}) AS last, count(*) AS rows FROM (SELECT ${key} FROM ${table} WHERE ${key} > @after ORDER BY ${key} LIMIT @size)`,
    ),
    count: client.prepare(`SELECT count(*) FROM ${table}`).pluck(),
    mark: client.prepare<{ after: Key; last: Key }>(
      `INSERT OR IGNORE INTO search_dirty (kind, ref, uid) SELECT ${mark} FROM ${table} WHERE ${key} > @after AND ${key} <= @last`,
    ),
  })),
  clearStoryDocs: client.prepare(`INSERT INTO stories_fts (stories_fts) VALUES ('delete-all')`),
  clearAuthorDocs: client.prepare(`INSERT INTO authors_fts (authors_fts) VALUES ('delete-all')`),
  mergeStories: client.prepare(`INSERT INTO stories_fts (stories_fts, rank) VALUES ('merge', -${MERGE_PAGES})`),
  mergeAuthors: client.prepare(`INSERT INTO authors_fts (authors_fts, rank) VALUES ('merge', -${MERGE_PAGES})`),
  countStories: client.prepare('SELECT count(*) FROM stories').pluck(),
  totalChanges: client.prepare('SELECT total_changes()').pluck(),
}));

export interface RebuildOptions {
  /** Checked between batches: true stops the rebuild with {@link RebuildInterrupted}. */
  stopped?: () => boolean;
  batchSize?: number;
}

const running = new WeakMap<Database.Database, Promise<number>>();

/** How far a running rebuild is: rows indexed so far of all the rows there were when it began. */
export interface RebuildProgress {
  done: number;
  total: number;
}

const progress = new WeakMap<Database.Database, RebuildProgress>();

/**
 * The progress of the rebuild running on this database, or undefined when none runs. `done`
 * counts stories, authors, series and tags; rows added meanwhile can take it past `total`, so
 * it is capped there; the final merge shows as done = total.
 */
export function rebuildProgress(db: Db): RebuildProgress | undefined {
  const current = progress.get(sqliteClient(db));
  return current === undefined ? undefined : { done: Math.min(current.done, current.total), total: current.total };
}

/** The rows a rebuild starting now would index (stories, authors, series and tags): its `total`. */
export function rebuildRowCount(db: Db): number {
  return statementsFor(sqliteClient(db)).batches.reduce((sum, batch) => sum + Number(batch.count.get()), 0);
}

/**
 * Rebuilds the embedded index (see the file comment) and resolves to the number of stories.
 * A second call while one runs shares it.
 */
export function rebuildSearchIndex(db: Db, options: RebuildOptions = {}): Promise<number> {
  const client = sqliteClient(db);
  const current = running.get(client);
  if (current !== undefined) return current;
  const rebuild = runRebuild(db, client, options).finally(() => {
    running.delete(client);
    progress.delete(client);
  });
  running.set(client, rebuild);
  return rebuild;
}

async function runRebuild(db: Db, client: Database.Database, { stopped = () => false, batchSize = REBUILD_BATCH }: RebuildOptions): Promise<number> {
  const s = statementsFor(client);
  /** One short write transaction, after giving other requests their turn. */
  const step = async <T>(work: (tx: Tx) => T): Promise<T> => {
    await new Promise((resolve) => setImmediate(resolve));
    if (stopped()) throw new RebuildInterrupted();
    return bookkeepingTransaction(db, work);
  };
  const counted: RebuildProgress = { done: 0, total: 0 };
  progress.set(client, counted);
  await step(() => {
    counted.total = rebuildRowCount(db);
    s.clearStoryDocs.run();
    s.clearAuthorDocs.run();
    clearSuggestions(client);
  });
  for (const batch of s.batches) {
    for (let after = batch.start; ; ) {
      const { last, rows } = await step((tx) => {
        const end = batch.end.get({ after, size: batchSize })!;
        if (end.last !== null) {
          batch.mark.run({ after, last: end.last });
          rebuildDirty(client, tx, { quiet: true });
        }
        return end;
      });
      if (last === null) break;
      counted.done += rows;
      after = last;
      if (rows < batchSize) break;
    }
  }
  // FTS5: a merge step that changed fewer than 2 rows (of its shadow tables) had nothing to merge.
  for (const merge of [s.mergeStories, s.mergeAuthors]) {
    const changedRows = () => {
      const before = Number(s.totalChanges.get());
      merge.run();
      return Number(s.totalChanges.get()) - before;
    };
    while ((await step(changedRows)) >= 2);
  }
  return Number(s.countStories.get());
}
