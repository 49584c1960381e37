/**
 * What `npm run bench` draws from, read from the seeded library (read-only): every story id, the
 * authors, series and tags with their story counts, the cover files, and the search index's
 * vocabulary with each word's story count, split into frequency bands (pools.ts). The vocabulary
 * scan reads the whole FTS index (seconds at 100,000 stories), so its result is kept next to the
 * library in `bench-pools.json` and reused while the library is the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE_NAME } from '../../src/db/open.js';
import { misspellings, wordBands, type BandName, type Misspelling, type TermDocs } from './pools.js';
import { HUNDRED_CHAPTER_TITLE, LONG_WORK_TITLE } from './long-works.js';

const POOLS_FILE = 'bench-pools.json';
/** Misspellings the recall check sends (docs/performance.md, "Typo recall"). */
export const RECALL_CASES = 1_000;
/**
 * The recall check misspells the rarest words of the rare band (at 100,000 stories even the
 * vocabulary's rarest word is in ~150 stories: a Zipf tail read 1,500 words at a time).
 */
const RECALL_SOURCE_WORDS = 5_000;
/** Page size of the recall check's searches (the API's largest). */
export const RECALL_PAGE_SIZE = 100;

export interface NamedCount {
  id: string;
  name: string;
  stories: number;
}

export interface RecallCase extends Misspelling {
  /** Every story that holds `word` (a rare word: at most 0.5 % of the library). */
  storyIds: string[];
}

export interface LibraryPools {
  stories: number;
  /** Every story id, oldest first, but the long works (long-works.ts): the one-chapter stories the other scenarios draw from. */
  storyIds: string[];
  /** The 40-chapter works the chapter page scenario reads, with their chapter counts. */
  longWorks: Array<{ id: string; chapters: number }>;
  /** The 100-chapter work whose EPUB the import timing sends back in. */
  hundredChapterWork: string | undefined;
  lastPage: number;
  /** Every author with a story, and how many. */
  authors: NamedCount[];
  authorRows: number;
  /** Every series with a story. */
  series: NamedCount[];
  /** Tags by story count, most used first (all of them). */
  tags: NamedCount[];
  coverPaths: string[];
  words: Record<BandName, TermDocs[]>;
  /** Every word of the index (to tell a typo from another real word). */
  vocabulary: Set<string>;
  recall: RecallCase[];
  dbBytes: number;
  sqliteVersion: string;
}

interface CachedVocabulary {
  key: string;
  stories: number;
  vocabulary: Array<[string, number]>;
}

/** The index's words with their story counts: from the cache when `key` matches, else scanned. */
function readVocabulary(client: Database.Database, dataDir: string, key: string, stories: number): TermDocs[] {
  const file = path.join(dataDir, POOLS_FILE);
  if (fs.existsSync(file)) {
    const cached = JSON.parse(fs.readFileSync(file, 'utf8')) as CachedVocabulary;
    if (cached.key === key && cached.stories === stories) return cached.vocabulary.map(([term, docs]) => ({ term, docs }));
  }
  const started = Date.now();
  client.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_vocabulary USING fts5vocab(main, stories_fts, 'row')");
  const rows = client.prepare('SELECT term, doc FROM temp.bench_vocabulary').raw().all() as Array<[string, number]>;
  console.log(`Read the index's ${rows.length.toLocaleString('en')} words and their story counts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const cache: CachedVocabulary = { key, stories, vocabulary: rows };
  fs.writeFileSync(file, JSON.stringify(cache));
  return rows.map(([term, docs]) => ({ term, docs }));
}

/** Reads the pools from the library in `dataDir`; `key` names the generator and seed it was built with. */
export function probeLibrary(dataDir: string, key: string): LibraryPools {
  const file = path.join(dataDir, DATABASE_FILE_NAME);
  const client = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const all = <T>(sql: string, ...params: unknown[]) => client.prepare(sql).all(...params) as T[];
    const column = (sql: string, ...params: unknown[]) => client.prepare(sql).pluck().all(...params) as string[];
    const one = <T>(sql: string, ...params: unknown[]) => client.prepare(sql).pluck().get(...params) as T;
    const stories = Number(one<number>('SELECT count(*) FROM stories'));
    const vocabulary = readVocabulary(client, dataDir, key, stories);
    const words = wordBands(vocabulary, stories);
    const known = new Set(vocabulary.map((entry) => entry.term));
    const storiesOf = client.prepare('SELECT s.id FROM stories_fts f JOIN stories s ON s.seq = f.rowid WHERE stories_fts MATCH ? ORDER BY s.seq').pluck();
    const recallWords = words.rare.slice(-RECALL_SOURCE_WORDS).map((entry) => entry.term);
    const recall = misspellings(recallWords, RECALL_CASES, known, 0x7e11).map((found) => ({
      ...found,
      storyIds: storiesOf.all(`"${found.word}"`) as string[],
    }));
    return {
      stories,
      storyIds: column('SELECT id FROM stories WHERE title NOT IN (?, ?) ORDER BY seq', LONG_WORK_TITLE, HUNDRED_CHAPTER_TITLE),
      longWorks: all<{ id: string; chapters: number }>('SELECT id, chapter_count AS chapters FROM stories WHERE title = ? ORDER BY seq', LONG_WORK_TITLE),
      hundredChapterWork: one<string | undefined>('SELECT id FROM stories WHERE title = ?', HUNDRED_CHAPTER_TITLE),
      lastPage: Math.max(0, Math.ceil(stories / 20) - 1),
      authors: all<NamedCount>('SELECT id, name, story_count AS stories FROM authors WHERE story_count > 0 ORDER BY name, id'),
      authorRows: Number(one<number>('SELECT count(*) FROM authors')),
      series: all<NamedCount>('SELECT id, name, story_count AS stories FROM series WHERE story_count > 0 ORDER BY name, id'),
      tags: all<NamedCount>('SELECT id, name, story_count AS stories FROM tags ORDER BY story_count DESC, name'),
      coverPaths: column('SELECT cover_path FROM stories WHERE cover_path IS NOT NULL ORDER BY seq'),
      words,
      vocabulary: known,
      recall,
      dbBytes: fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0),
      sqliteVersion: one<string>('SELECT sqlite_version()'),
    };
  } finally {
    client.close();
  }
}
