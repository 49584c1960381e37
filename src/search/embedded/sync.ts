/**
 * Keeps the embedded search index in step with the tables, inside every write transaction
 * (docs/decisions.md, "Search › Engines": updated in the same transaction as each write).
 *
 * Triggers (drizzle/0002_fts5-search-index.sql) mark what a write touched in `search_dirty`:
 * a story's own change, a tag link, an author/series/tag rename (which marks every story that
 * shows the name), a delete, an author's URLs; 'author-attrs' (drizzle/0006) when only an
 * author's story count (with Typesense: its rating, avatar…) changed, which refreshes its
 * suggestion weight and tells listeners but leaves its FTS document alone; 'story-attrs' (a TEMP
 * trigger of src/search/typesense/outbox.ts: one of its tags changed kind) only tells listeners. `writeTransaction` calls
 * {@link syncSearchDocuments} just before it commits; it rebuilds each marked document once
 * (delete + insert, set-based, so a story created with five tags tokenizes its body once),
 * refreshes the marked suggestions and empties the queue. A crash rolls back the write and the
 * index change together: they can never disagree.
 */
import type Database from 'better-sqlite3';
import type { Db, DbOrTx } from '../../db/open.js';
import { defineStatements, sqliteClient } from '../../db/statements.js';
import type { SearchChanges } from '../engine.js';
import { putSuggestion, type SuggestionKind } from './suggestions.js';
import { addNameTerms } from './terms.js';

/** Told, inside the transaction, which documents changed (the Typesense outbox hooks in here). */
export type SearchChangeListener = (tx: DbOrTx, changes: SearchChanges) => void;

const listeners = new WeakMap<Database.Database, Set<SearchChangeListener>>();

/**
 * Registers a listener for the syncs of one database connection; returns its removal. Keyed
 * by connection, so two apps in one process (tests) never see each other's changes.
 */
export function onSearchChanges(db: Db, listener: SearchChangeListener): () => void {
  const client = sqliteClient(db);
  let set = listeners.get(client);
  if (set === undefined) {
    set = new Set();
    listeners.set(client, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

const DIRTY_STORIES = `SELECT ref FROM search_dirty WHERE kind = 'story'`;
const DIRTY_AUTHORS = `SELECT ref FROM search_dirty WHERE kind = 'author'`;

const statementsFor = defineStatements((client: Database.Database) => ({
  anyDirty: client.prepare('SELECT 1 FROM search_dirty LIMIT 1').pluck(),
  dirty: client.prepare<[], { kind: string; ref: number | string; uid: string }>('SELECT kind, ref, uid FROM search_dirty'),
  clearDirty: client.prepare('DELETE FROM search_dirty'),

  removeStoryDocs: client.prepare(`DELETE FROM stories_fts WHERE rowid IN (${DIRTY_STORIES})`),
  insertStoryDocs: client.prepare(
    `INSERT INTO stories_fts (rowid, title, names, meta, body)
     SELECT s.seq, s.title,
       concat_ws(char(10), a.name, se.name,
         (SELECT group_concat(t.name, char(10)) FROM story_tags st JOIN tags t ON t.id = st.tag_id WHERE st.story_id = s.id)),
       concat_ws(char(10), s.summary, s.description),
       s.content_plain
     FROM stories s
     LEFT JOIN authors a ON a.id = s.author_id
     LEFT JOIN series se ON se.id = s.series_id
     WHERE s.seq IN (${DIRTY_STORIES})`,
  ),
  removeAuthorDocs: client.prepare(`DELETE FROM authors_fts WHERE rowid IN (${DIRTY_AUTHORS})`),
  insertAuthorDocs: client.prepare(
    `INSERT INTO authors_fts (rowid, name, notes, urls)
     SELECT a.seq, a.name, a.notes,
       (SELECT group_concat(u.url, char(10)) FROM author_urls u WHERE u.author_id = a.id)
     FROM authors a
     WHERE a.seq IN (${DIRTY_AUTHORS})`,
  ),

  // Title and names of each rebuilt story, for the typo-correction vocabulary (./terms.ts).
  storyNames: client.prepare<[], { text: string | null }>(
    `SELECT concat_ws(char(10), s.title, a.name, se.name,
       (SELECT group_concat(t.name, char(10)) FROM story_tags st JOIN tags t ON t.id = st.tag_id WHERE st.story_id = s.id)) AS text
     FROM stories s
     LEFT JOIN authors a ON a.id = s.author_id
     LEFT JOIN series se ON se.id = s.series_id
     WHERE s.seq IN (${DIRTY_STORIES})`,
  ),
  storyTitles: client.prepare<[], { ref: number; text: string | null }>(
    `SELECT d.ref AS ref, s.title AS text FROM search_dirty d LEFT JOIN stories s ON s.seq = d.ref WHERE d.kind = 'story'`,
  ),
  authorNames: client.prepare<[], { ref: number; text: string | null; weight: number | null }>(
    `SELECT DISTINCT d.ref AS ref, a.name AS text, a.story_count AS weight FROM search_dirty d LEFT JOIN authors a ON a.seq = d.ref
     WHERE d.kind IN ('author', 'author-attrs')`,
  ),
  seriesNames: client.prepare<[], { ref: string; text: string | null; weight: number | null }>(
    `SELECT d.ref AS ref, se.name AS text, se.story_count AS weight FROM search_dirty d LEFT JOIN series se ON se.id = d.ref WHERE d.kind = 'series'`,
  ),
  tagNames: client.prepare<[], { ref: string; text: string | null; weight: number | null }>(
    `SELECT d.ref AS ref, t.name AS text, t.story_count AS weight FROM search_dirty d LEFT JOIN tags t ON t.id = d.ref WHERE d.kind = 'tag'`,
  ),

}));

/**
 * Rebuilds the search documents of everything marked dirty in this transaction and empties the
 * queue. When nothing is marked it costs one indexed read. Synchronous (docs/architecture.md, "Ten
 * habits", 8).
 */
export function syncSearchDocuments(tx: DbOrTx): void {
  const client = sqliteClient(tx);
  const s = statementsFor(client);
  if (s.anyDirty.get() === undefined) return;
  rebuildDirty(client, tx);
}

export interface RebuildDirtyOptions {
  /** A reindex batch: tell no listener (nothing in the tables changed). */
  quiet?: boolean;
}

/** Rebuilds the documents and suggestions of everything marked in `search_dirty`, and empties it. */
export function rebuildDirty(client: Database.Database, tx: DbOrTx, { quiet = false }: RebuildDirtyOptions = {}): void {
  const s = statementsFor(client);
  s.removeStoryDocs.run();
  s.removeAuthorDocs.run();
  s.insertStoryDocs.run();
  s.insertAuthorDocs.run();
  const names = s.storyNames.all().map((row) => row.text);
  addNameTerms(client, names, quiet ? 0 : names.length);

  refreshSuggestions(client, 'title', s.storyTitles.all().map((row) => ({ ...row, weight: 1 })));
  refreshSuggestions(client, 'author', s.authorNames.all());
  refreshSuggestions(client, 'series', s.seriesNames.all());
  refreshSuggestions(client, 'tag', s.tagNames.all());

  const subscribers = quiet ? undefined : listeners.get(client);
  if (subscribers !== undefined && subscribers.size > 0) {
    const changes: SearchChanges = { stories: [], authors: [] };
    const authors = new Map<number, string>();
    const stories = new Map<number, string>();
    for (const row of s.dirty.all()) {
      if (row.kind === 'story' || row.kind === 'story-attrs') stories.set(Number(row.ref), row.uid);
      else if (row.kind === 'author' || row.kind === 'author-attrs') authors.set(Number(row.ref), row.uid);
    }
    for (const [seq, id] of stories) changes.stories.push({ seq, id });
    for (const [seq, id] of authors) changes.authors.push({ seq, id });
    if (changes.stories.length > 0 || changes.authors.length > 0) {
      for (const listener of subscribers) listener(tx, changes);
    }
  }
  s.clearDirty.run();
}

function refreshSuggestions(
  client: Database.Database,
  kind: SuggestionKind,
  rows: readonly { ref: number | string; text: string | null; weight: number | null }[],
): void {
  for (const row of rows) putSuggestion(client, kind, row.ref, row.text, row.weight ?? 0);
}
