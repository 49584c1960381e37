/**
 * Writes the library archive (docs/export-format.md) from a database copy
 * (./snapshot.ts) as a ZIP stream, with bounded memory: rows are read in keyset batches of
 * {@link BATCH}, and every entry is added lazily, so its bytes are read from the copy or the disk
 * only when the ZIP writer reaches it, and the writer reaches it only as fast as the reader of
 * the stream takes the bytes (pipe backpressure). What stays in memory grows with the number of
 * entries only (the ZIP's central directory, the set of image paths), never with their content.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import type Database from 'better-sqlite3';
import yazl from 'yazl';
import { replaceStoredImageUrls, storedImagePaths } from '../images/inline-images.js';
import { findStoredImage } from '../images/store.js';
import { APP_IDENTITY } from '../lib/app-version.js';
import { escapeHtml } from '../search/text/excerpt.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, type ArchiveAuthor, type ArchiveChapter, type ArchiveCounts, type ArchiveManifest, type ArchiveProgress, type ArchiveSeries, type ArchiveShelf, type ArchiveStory, type ArchiveTag } from '../schemas/archive.js';
import type { ReadingStatus } from '../schemas/reading-status.js';
import type { TagKind } from '../schemas/tag.js';
import { STORY_TAG_NAMES_SQL } from '../stories/present.js';

/** Rows per keyset batch: one statement per 200 rows, a few hundred KB of text at most in flight. */
const BATCH = 200;

/** Fixed entry times: the same library gives the same entries (only `createdAt` in the manifest differs). */
const ENTRY_TIME = new Date(Date.UTC(2000, 0, 1));

export interface ExportSummary {
  counts: ArchiveCounts;
  missingImages: string[];
}

export interface ArchiveStream {
  /** The ZIP bytes. */
  readonly stream: Readable;
  /** Settles when the last byte has been handed to the stream (or the export failed). */
  readonly finished: Promise<ExportSummary>;
}

interface StoryRow {
  seq: number;
  id: string;
  title: string;
  summary: string | null;
  description: string | null;
  content_html: string | null;
  source_url: string | null;
  cover_path: string | null;
  rating: number | null;
  volume: number | null;
  author_id: string | null;
  author_name: string | null;
  series_id: string | null;
  series_name: string | null;
  tag_names: string;
  created_at: string;
  updated_at: string;
  reading_status: ReadingStatus | null;
  finished_at: string | null;
  read_count: number;
  favourite: number;
  status: 'complete' | 'in-progress' | null;
  published_at: string | null;
  source_updated_at: string | null;
  language: string | null;
  chapters_added_at: string | null;
  coauthor_ids: string;
}

/**
 * Streams the archive of the library in `db` (a private copy: nothing writes to it while the
 * stream runs), its images read from `imagesDir` or, when removed since the copy was taken, from
 * the image trash. `now` is the manifest's `createdAt`.
 */
export function streamArchive(db: Database.Database, imagesDir: string, now: Date): ArchiveStream {
  const zip = new yazl.ZipFile();
  const images = new Map<string, string>();
  const missing = new Set<string>();
  const counts: ArchiveCounts = { authors: 0, series: 0, tags: 0, stories: 0, progress: 0, images: 0, shelves: 0 };

  /** The file an image path names, from `images/` or the trash; undefined (and noted) when neither has it. */
  const locate = (relPath: string): string | undefined => {
    const known = images.get(relPath);
    if (known !== undefined) return known;
    const found = findStoredImage(imagesDir, relPath);
    if (found === undefined) missing.add(relPath);
    else images.set(relPath, found);
    return found;
  };

  const addLines = (name: string, lines: () => AsyncGenerator<string>) => {
    zip.addReadStreamLazy(name, { mtime: ENTRY_TIME }, (callback) => callback(null, Readable.from(lines(), { objectMode: false })));
  };

  const output = zip.outputStream as Readable;
  /** Rejects when the reader went away: nothing will request the entries still waiting. */
  const closed = new Promise<never>((_resolve, reject) => output.once('close', () => reject(new Error('the archive stream was closed before its end'))));
  closed.catch(() => undefined);
  let storiesWritten: () => void = () => undefined;
  const storiesDone = new Promise<void>((resolve) => (storiesWritten = resolve));

  const finished = (async (): Promise<ExportSummary> => {
    try {
      addLines('authors.jsonl', () => authorLines(db, locate, counts));
      addLines('series.jsonl', () => seriesLines(db, counts));
      addLines('tags.jsonl', () => tagLines(db, counts));
      addLines('shelves.jsonl', () => shelfLines(db, counts));
      const parked: unknown[] = [];
      await addStories(zip, db, locate, counts, closed, parked);
      // Requested only once every story before it is written: the image set is complete then.
      zip.addReadStreamLazy('progress.jsonl', { mtime: ENTRY_TIME }, (callback) => {
        storiesWritten();
        callback(null, Readable.from(progressLines(db, counts), { objectMode: false }));
      });
      await Promise.race([storiesDone, closed]);
      for (const [relPath, file] of [...images].sort(([a], [b]) => (a < b ? -1 : 1))) {
        counts.images += 1;
        zip.addReadStreamLazy(`images/${relPath}`, { mtime: ENTRY_TIME, compress: false }, (callback) => {
          // O_NOFOLLOW: a link put there since the check is refused, not followed.
          fsp.open(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0)).then(
            (handle) => callback(null, handle.createReadStream()),
            (error: unknown) => callback(error, Readable.from([])),
          );
        });
      }
      const summary: ExportSummary = { counts, missingImages: [] };
      // Last, and built when reached: by then every count is final.
      zip.addReadStreamLazy('manifest.json', { mtime: ENTRY_TIME }, (callback) => {
        summary.missingImages = [...missing].sort();
        const manifest: ArchiveManifest = {
          format: ARCHIVE_FORMAT,
          version: ARCHIVE_VERSION,
          app: { name: APP_IDENTITY.name, version: APP_IDENTITY.version },
          createdAt: now.toISOString(),
          counts,
          missingImages: summary.missingImages,
        };
        callback(null, Readable.from([Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)]));
      });
      unparkEntries(zip, parked);
      zip.end();
      await Promise.race([new Promise<void>((resolve) => output.once('end', resolve)), closed]);
      return summary;
    } catch (error) {
      output.destroy(error as Error);
      throw error;
    }
  })();
  // The caller learns of a failure from the stream (it is destroyed with the error) or from `finished`.
  finished.catch(() => undefined);
  zip.on('error', (error: Error) => output.destroy(error));
  return { stream: output, finished };
}

/**
 * `stories/<id>.json` and `stories/<id>.html`, a batch of ids at a time: the next batch is read
 * only once the writer has requested the previous batch's last entry, so at most two batches of
 * entries wait at any time.
 */
async function addStories(
  zip: yazl.ZipFile,
  db: Database.Database,
  locate: (relPath: string) => string | undefined,
  counts: ArchiveCounts,
  closed: Promise<never>,
  parked: unknown[],
): Promise<void> {
  const ids = db.prepare<[number, number], { seq: number; id: string }>('SELECT seq, id FROM stories WHERE seq > ? ORDER BY seq LIMIT ?');
  const one = db.prepare<[string], StoryRow>(STORY_SQL);
  const chaptersOf = db.prepare<[string], ArchiveChapter>(CHAPTERS_SQL);
  let after = 0;
  let previousBatchReached: Promise<void> = Promise.resolve();
  for (;;) {
    const batch = ids.all(after, BATCH);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.seq;
    await Promise.race([previousBatchReached, closed]);
    let signal: () => void = () => undefined;
    previousBatchReached = new Promise((resolve) => (signal = resolve));
    batch.forEach(({ id }, index) => {
      counts.stories += 1;
      let html = '';
      zip.addReadStreamLazy(`stories/${id}.json`, { mtime: ENTRY_TIME }, (callback) => {
        // Called by the ZIP writer, maybe after the client left and the copy was closed: a
        // throw here would escape into the writer, so every failure goes to the callback.
        let row: StoryRow | undefined;
        let chapters: ArchiveChapter[];
        try {
          row = one.get(id);
          chapters = chaptersOf.all(id);
        } catch (error) {
          return callback(error, Readable.from([]));
        }
        if (row === undefined) return callback(new Error(`story ${id} vanished from the export copy`), Readable.from([]));
        const story = storyEntry(row, chapters, locate);
        html = readableCopy(row);
        callback(null, Readable.from([Buffer.from(`${JSON.stringify(story, null, 2)}\n`)]));
      });
      zip.addReadStreamLazy(`stories/${id}.html`, { mtime: ENTRY_TIME }, (callback) => {
        if (index === batch.length - 1) {
          parkWrittenEntries(zip, parked);
          signal();
        }
        callback(null, Readable.from([Buffer.from(html)]));
        html = '';
      });
    });
  }
}

/**
 * The private parts of yazl 3.3 that {@link parkWrittenEntries} relies on (test/unit/archive-zip.test.ts
 * holds them). yazl 3.3.1 has no public way around the scan: `pumpEntries` walks `entries` from
 * the first one at every step and nothing public removes or skips a written entry. Upstream's
 * https://github.com/thejoshwolfe/yazl/pull/91 (open) would make the scan linear; once a release
 * has it, this and the pin test go.
 */
interface YazlInternals {
  entries: { state: number }[];
}
/** yazl's `Entry.FILE_DATA_DONE`: the entry's data is written, only its central directory record is left. */
const ENTRY_WRITTEN = 3;

/**
 * yazl looks for the next entry to write by scanning its list of entries from the first one,
 * at every step: quadratic in the number of entries. 80,000 entries took 117 s, 40,000 took
 * 19 s, and a library of 100,000 stories has 200,000. Entries already written are moved aside
 * here (yazl needs them again only for the central directory, written after `end()`) and put
 * back by {@link unparkEntries} before `end()`, so each scan starts near the entry it finds.
 */
function parkWrittenEntries(zip: yazl.ZipFile, parked: unknown[]): void {
  const internals = zip as unknown as YazlInternals;
  let written = 0;
  while (written < internals.entries.length && (internals.entries[written]?.state ?? 0) >= ENTRY_WRITTEN) written += 1;
  for (const entry of internals.entries.splice(0, written)) parked.push(entry);
}

/** Puts the entries {@link parkWrittenEntries} moved aside back in front, in their order. */
function unparkEntries(zip: yazl.ZipFile, parked: unknown[]): void {
  const internals = zip as unknown as YazlInternals;
  internals.entries = (parked as YazlInternals['entries']).concat(internals.entries);
  parked.length = 0;
}

const STORY_SQL = `SELECT s.seq, s.id, s.title, s.summary, s.description, s.content_html, s.source_url, s.cover_path, s.rating, s.volume,
    s.author_id, a.name AS author_name, s.series_id, se.name AS series_name,
    ${STORY_TAG_NAMES_SQL} AS tag_names,
    s.created_at, s.updated_at, s.reading_status, s.finished_at, s.read_count, s.favourite,
    s.status, s.published_at, s.source_updated_at, s.language, s.chapters_added_at,
    (SELECT json_group_array(author_id ORDER BY position) FROM story_coauthors c WHERE c.story_id = s.id) AS coauthor_ids
  FROM stories s LEFT JOIN authors a ON a.id = s.author_id LEFT JOIN series se ON se.id = s.series_id
  WHERE s.id = ?`;

/** A story's chapters in reading order, as the archive carries them (a story has at least one). */
const CHAPTERS_SQL = `SELECT title, content_html AS contentHtml, source_url AS sourceUrl, source_key AS sourceKey,
    source_gone_at AS sourceGoneAt, created_at AS createdAt, updated_at AS updatedAt
  FROM story_chapters WHERE story_id = ? ORDER BY position`;

function storyEntry(row: StoryRow, chapters: ArchiveChapter[], locate: (relPath: string) => string | undefined): ArchiveStory {
  // Every stored image the body names (an imported page's pictures are `inline/`): the archive carries them.
  for (const relPath of storedImagePaths(row.content_html)) locate(relPath);
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    description: row.description,
    contentHtml: row.content_html,
    sourceUrl: row.source_url,
    rating: row.rating,
    volume: row.volume,
    authorId: row.author_id,
    seriesId: row.series_id,
    tagNames: JSON.parse(row.tag_names) as string[],
    coverPath: row.cover_path !== null && locate(row.cover_path) !== undefined ? row.cover_path : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    readingStatus: row.reading_status,
    finishedAt: row.finished_at,
    readCount: row.read_count,
    favourite: row.favourite === 1,
    status: row.status,
    publishedAt: row.published_at,
    sourceUpdatedAt: row.source_updated_at,
    language: row.language,
    chaptersAddedAt: row.chapters_added_at,
    coauthorIds: JSON.parse(row.coauthor_ids) as string[],
    // Every story has a chapter; a copy made without the table's rows still gives its body.
    ...(chapters.length > 0 ? { chapters } : {}),
  };
}

/**
 * A standalone page a person can open without the app: the title, author, series and the
 * already sanitized story HTML (docs/decisions.md, "Story HTML"), no script, no remote style.
 * Images point at `../images/...` so they show when the ZIP is unpacked.
 */
function readableCopy(row: StoryRow): string {
  const byline = [row.author_name, row.series_name === null ? null : `${row.series_name}${row.volume === null ? '' : ` #${row.volume}`}`]
    .filter((part): part is string => part !== null)
    .map(escapeHtml)
    .join(' · ');
  const body = replaceStoredImageUrls(row.content_html ?? '', (relPath) => `../images/${relPath}`);
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' data: https: http:; style-src 'unsafe-inline'">
<title>${escapeHtml(row.title)}</title>
<style>body{max-width:40em;margin:2em auto;padding:0 1em;font-family:Georgia,serif;line-height:1.6}img{max-width:100%}</style>
</head><body>
<h1>${escapeHtml(row.title)}</h1>
${byline === '' ? '' : `<p>${byline}</p>\n`}${body}
</body></html>
`;
}

/** Keyset batches of one table as JSON lines: `seq`/`id`-ordered, so the order is stable. */
async function* batchedLines<Row, Line>(read: (after: Row | undefined) => Row[], toLine: (row: Row) => Line | undefined): AsyncGenerator<string> {
  let last: Row | undefined;
  for (;;) {
    const rows = read(last);
    if (rows.length === 0) return;
    last = rows[rows.length - 1];
    let chunk = '';
    for (const row of rows) {
      const line = toLine(row);
      if (line !== undefined) chunk += `${JSON.stringify(line)}\n`;
    }
    yield chunk;
  }
}

interface AuthorRowText {
  seq: number;
  id: string;
  name: string;
  notes: string | null;
  urls: string;
  rating: number | null;
  avatar_image_path: string | null;
  created_at: string;
  updated_at: string;
}

function authorLines(db: Database.Database, locate: (relPath: string) => string | undefined, counts: ArchiveCounts): AsyncGenerator<string> {
  const page = db.prepare<[number, number], AuthorRowText>(
    `SELECT seq, id, name, notes, rating, avatar_image_path, created_at, updated_at,
       (SELECT json_group_array(url ORDER BY position) FROM author_urls u WHERE u.author_id = a.id) AS urls
     FROM authors a WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  return batchedLines<AuthorRowText, ArchiveAuthor>(
    (after) => page.all(after?.seq ?? 0, BATCH),
    (row): ArchiveAuthor => {
      counts.authors += 1;
      return {
        id: row.id,
        name: row.name,
        notes: row.notes,
        urls: JSON.parse(row.urls) as string[],
        rating: row.rating,
        avatarImagePath: row.avatar_image_path !== null && locate(row.avatar_image_path) !== undefined ? row.avatar_image_path : null,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    },
  );
}

interface SeriesRowText {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

function seriesLines(db: Database.Database, counts: ArchiveCounts): AsyncGenerator<string> {
  const page = db.prepare<[string, number], SeriesRowText>(
    'SELECT id, name, description, created_at, updated_at FROM series WHERE id > ? ORDER BY id LIMIT ?',
  );
  return batchedLines<SeriesRowText, ArchiveSeries>(
    (after) => page.all(after?.id ?? '', BATCH),
    (row): ArchiveSeries => {
      counts.series += 1;
      return { id: row.id, name: row.name, description: row.description, createdAt: row.created_at, updatedAt: row.updated_at };
    },
  );
}

type TagRowText = Omit<SeriesRowText, 'description'> & { kind: TagKind | null };

function tagLines(db: Database.Database, counts: ArchiveCounts): AsyncGenerator<string> {
  const page = db.prepare<[string, number], TagRowText>(
    'SELECT id, name, kind, created_at, updated_at FROM tags WHERE id > ? ORDER BY id LIMIT ?',
  );
  return batchedLines<TagRowText, ArchiveTag>(
    (after) => page.all(after?.id ?? '', BATCH),
    (row): ArchiveTag => {
      counts.tags += 1;
      return { id: row.id, name: row.name, kind: row.kind, createdAt: row.created_at, updatedAt: row.updated_at };
    },
  );
}

interface ShelfRowText {
  id: string;
  name: string;
  description: string | null;
  kind: 'manual' | 'smart';
  query: string | null;
  story_ids: string;
  created_at: string;
  updated_at: string;
}

/** Shelves by id, a manual shelf with its story ids in its order (at most 2,000, the shelf's bound). */
function shelfLines(db: Database.Database, counts: ArchiveCounts): AsyncGenerator<string> {
  const page = db.prepare<[string, number], ShelfRowText>(
    `SELECT id, name, description, kind, query, created_at, updated_at,
       (SELECT json_group_array(story_id ORDER BY position, story_id) FROM shelf_stories WHERE shelf_id = s.id) AS story_ids
     FROM shelves s WHERE id > ? ORDER BY id LIMIT ?`,
  );
  return batchedLines<ShelfRowText, ArchiveShelf>(
    (after) => page.all(after?.id ?? '', BATCH),
    (row): ArchiveShelf => {
      counts.shelves = (counts.shelves ?? 0) + 1;
      return {
        id: row.id,
        name: row.name,
        description: row.description,
        kind: row.kind,
        query: row.query === null ? null : (JSON.parse(row.query) as ArchiveShelf['query']),
        storyIds: JSON.parse(row.story_ids) as string[],
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    },
  );
}

interface ProgressRowText {
  story_id: string;
  progress: number;
  position: string | null;
  updated_at: string;
}

function progressLines(db: Database.Database, counts: ArchiveCounts): AsyncGenerator<string> {
  const page = db.prepare<[string, number], ProgressRowText>(
    'SELECT story_id, progress, position, updated_at FROM reading_progress WHERE story_id > ? ORDER BY story_id LIMIT ?',
  );
  return batchedLines<ProgressRowText, ArchiveProgress>(
    (after) => page.all(after?.story_id ?? '', BATCH),
    (row): ArchiveProgress => {
      counts.progress += 1;
      return { storyId: row.story_id, progress: row.progress, position: row.position, updatedAt: row.updated_at };
    },
  );
}
