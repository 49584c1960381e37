/**
 * A story's shape is written by hand in several places (docs/adding-a-story-field.md). This test
 * reads the story table's real columns from the database the app migrated at startup and checks
 * each column against what those places actually produce for a real story:
 *
 * 1. the column -> API field mapping below (every column must have an entry);
 * 2. the story DTO, as `GET /api/stories/{id}` answers it (src/stories/present.ts);
 * 3. a search hit, as `GET /api/stories/search` answers it (src/search/embedded/stories.ts, present.ts);
 * 4. the Typesense collection schema (src/search/typesense/schema.ts, `collectionSchema`);
 * 5. the Typesense document built from the row (src/search/typesense/documents.ts);
 * 6. the embedded FTS document: a word written into the column must become findable through
 *    `stories_fts` after the same sync step every write runs (src/search/embedded/sync.ts, and the
 *    `UPDATE OF` list of drizzle/0002's trigger, which decides whether the document is rebuilt);
 * 7. the triggers that decide whether a change reaches Typesense: changing the column alone must
 *    mark the story in `search_dirty` on a connection with the Typesense triggers installed
 *    (src/search/typesense/outbox.ts `installOutboxTriggers`, plus drizzle/0002's trigger). A column missing
 *    there is the silent failure: the API shows the new value, Typesense never hears of it;
 * 8. a list card, as the library pages get it (`STORY_CARD_JSON_SQL`, src/stories/present.ts);
 * 9. an OPDS acquisition entry (src/opds/repository.ts, `loadOpdsStories`);
 * 10. a story as an EPUB book is made of it (src/epub/repository.ts, `loadBookStories`);
 * 11. the library archive, as a round trip: the library is exported, restored into a second,
 *    empty app, and the restored row must hold every column's value (src/archive/export.ts,
 *    src/schemas/archive.ts, src/archive/restore.ts). A column the export leaves out comes back
 *    empty, so a backup silently loses it.
 *
 * Each place has an explicit allow-list of the columns that deliberately do not belong there.
 * The second test adds a column to a live database and checks that every place reports it.
 */
import path from 'node:path';
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { fileUpload } from '../helpers/multipart.js';
import * as img from '../helpers/images.js';
import { DATABASE_FILE_NAME, openDatabase, type Db } from '../../src/db/open.js';
import { installOutboxTriggers } from '../../src/search/typesense/outbox.js';
import { syncSearchDocuments } from '../../src/search/embedded/sync.js';
import { readStoryDocuments } from '../../src/search/typesense/documents.js';
import { collectionSchema } from '../../src/search/typesense/schema.js';
import { loadStoryCards } from '../../src/stories/repository.js';
import { loadOpdsStories } from '../../src/opds/repository.js';
import { loadBookStories } from '../../src/epub/repository.js';
import { exportArchive, restoreArchive } from '../helpers/archive.js';

/** Every story column and the API field that shows it. Must list exactly the table's columns. */
const FIELD_OF_COLUMN: Record<string, string> = {
  seq: 'seq',
  id: 'id',
  title: 'title',
  summary: 'summary',
  description: 'description',
  content_html: 'contentHtml',
  content_plain: 'contentPlain',
  source_url: 'sourceUrl',
  cover_path: 'coverPath',
  word_count: 'wordCount',
  rating: 'rating',
  volume: 'volume',
  author_id: 'authorId',
  series_id: 'seriesId',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  chapter_count: 'chapterCount',
  status: 'status',
  published_at: 'publishedAt',
  source_updated_at: 'sourceUpdatedAt',
  language: 'language',
  chapters_added_at: 'chaptersAddedAt',
  reading_status: 'readingStatus',
  finished_at: 'finishedAt',
  read_count: 'readCount',
  favourite: 'favourite',
};

/**
 * The columns chapters, sources and reading status brought (drizzle/0016). Each place below
 * allow-lists the ones it does not carry yet; the work that makes a place carry one takes it
 * off that place's list.
 */
const NEWER = [
  'chapter_count',
  'status',
  'published_at',
  'source_updated_at',
  'language',
  'chapters_added_at',
];

/**
 * The reader's own state (docs/decisions.md, "Reading status"): on the DTO, the search hit,
 * Typesense and the archive; never words to match, and not in the EPUB (whose bytes, stamped
 * with `updatedAt`, must not change when the reader finishes it: KOReader knows a book by them)
 * nor in an OPDS entry (Atom has no element for them; the feeds group by them instead).
 */
const READER_STATE = ['reading_status', 'finished_at', 'read_count', 'favourite'];
const without = (list: readonly string[], ...carried: string[]) => list.filter((column) => !carried.includes(column));

/** `seq` is the integer rowid the FTS index keys on; the API only ever shows the UUID `id`. */
const INTERNAL = ['seq'];

const NOT_IN = {
  dto: [...INTERNAL],
  /** A hit carries a snippet instead of the texts: result pages stay small. */
  searchHit: [...INTERNAL, ...NEWER, 'description', 'content_html', 'content_plain'],
  /**
   * Typesense has its own implicit `id` field (the schema lists `idKey`, its sortable copy), and
   * it indexes the plain text, never the HTML.
   */
  typesenseSchema: [...INTERNAL, ...NEWER, 'id', 'content_html'],
  /** Typesense indexes the plain text, never the HTML. */
  typesenseDocument: [...INTERNAL, ...NEWER, 'content_html'],
  /**
   * Words are matched in the title, names (through author_id and series_id), summary,
   * description and plain text. The HTML is indexed as its plain text; the rest are attributes
   * that search filters and sorts read from `stories_search_attrs_idx`, never words to match.
   */
  ftsDocument: [
    ...INTERNAL,
    ...NEWER,
    ...READER_STATE,
    'id',
    'content_html',
    'source_url',
    'cover_path',
    'word_count',
    'rating',
    'volume',
    'created_at',
    'updated_at',
  ],
  /**
   * `id` and `created_at` never change after the insert (which always marks the story);
   * `content_html` is only ever written together with `content_plain`, which is watched.
   */
  typesenseTrigger: [...INTERNAL, ...NEWER, 'id', 'created_at', 'content_html'],
  /**
   * A card shows no text (a page of 20 stays a few KB) and sorts by `createdAt` only; of the
   * reader's state it shows the status and the mark as badges, not the history (when, how often).
   */
  card: [...INTERNAL, ...NEWER, 'finished_at', 'read_count', 'summary', 'description', 'content_html', 'content_plain', 'source_url', 'updated_at'],
  /**
   * An Atom entry has a summary but no body (the book is the acquisition link), and no element
   * for a word count, a rating or a source; the description stays in the book.
   */
  opdsEntry: [...INTERNAL, ...without(NEWER, 'chapter_count', 'status', 'language'), ...READER_STATE, 'description', 'content_html', 'content_plain', 'source_url', 'word_count', 'rating'],
  /**
   * A book is made from the HTML (its plain text is for search), stamped with `updatedAt`, and
   * has no metadata for a word count, a rating or when the story was added; its chapters it reads
   * from their own table.
   */
  epubRow: [...INTERNAL, ...without(NEWER, 'status', 'published_at', 'source_updated_at', 'language'), ...READER_STATE, 'content_html', 'content_plain', 'word_count', 'rating', 'created_at'],
  /** The target numbers its own rows; everything else must come back as it was. */
  archiveRoundTrip: [...INTERNAL],
} satisfies Record<string, string[]>;

type Place = keyof typeof NOT_IN;
const PLACES = ['mapping', ...Object.keys(NOT_IN)] as const;

/**
 * Where a place shows a column under another field than the API's: the field, and the value it
 * must hold (the referenced row's name, where a place shows the name instead of the id).
 */
const SHOWN_AS: Partial<Record<Place, Record<string, { field: string; value: (row: Record<string, unknown>, nameOf: NameOf) => unknown }>>> = {
  opdsEntry: { series_id: { field: 'seriesName', value: (row, nameOf) => nameOf('series', row.series_id) } },
  epubRow: { author_id: { field: 'author', value: (row, nameOf) => nameOf('authors', row.author_id) } },
};
type NameOf = (table: 'authors' | 'series', id: unknown) => unknown;

/** A referenced table, and how the test makes a row in it whose name is a given word. */
const NAMED_ROW_ENDPOINT: Record<string, string> = { authors: '/api/authors', series: '/api/series' };

const camel = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
/** Typesense keeps timestamps as epoch milliseconds (src/search/typesense/schema.ts). */
const TYPESENSE_VALUE: Record<string, (value: unknown) => unknown> = {
  created_at: (value) => Date.parse(String(value)),
  updated_at: (value) => Date.parse(String(value)),
  finished_at: (value) => Date.parse(String(value)),
};

async function uploadCover(ctx: TestContext): Promise<string> {
  const body = fileUpload(img.png());
  const res = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: body.payload, headers: body.headers });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { path: string }).path;
}

/** A story with every column set, each to a value no other column has. */
async function createFullStory(ctx: TestContext): Promise<string> {
  const res = await ctx.post('/api/stories', {
    title: 'Lighthouse keeper',
    summary: 'A summary',
    description: 'A description',
    contentHtml: '<p>The lamp turned all night.</p>',
    sourceUrl: 'https://example.org/lighthouse',
    coverPath: await uploadCover(ctx),
    rating: 4,
    volume: 2,
    authorName: 'Ada Shore',
    seriesName: 'Coastal tales',
    tagNames: ['sea'],
    status: 'in-progress',
    publishedAt: '2024-01-02T03:04:05.000Z',
    sourceUpdatedAt: '2024-05-13T00:00:00.000Z',
    language: 'en-GB',
  });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  const id = (res.json() as { id: string }).id;
  // A chapter added after the create stamps chaptersAddedAt.
  const chapter = await ctx.post(`/api/stories/${id}/chapters`, { title: 'Second night', contentHtml: '<p>The lamp again.</p>' });
  if (chapter.statusCode !== 201) throw new Error(`append failed: ${chapter.statusCode} ${chapter.body}`);
  // The reader's state through its endpoints: finished twice (so the count is not the default) and a favourite.
  for (const status of ['finished', 'reading', 'finished']) {
    const set = await ctx.put(`/api/stories/${id}/reading-status`, { status });
    if (set.statusCode !== 200) throw new Error(`status failed: ${set.statusCode} ${set.body}`);
  }
  const favourite = await ctx.put(`/api/stories/${id}/favourite`, { favourite: true });
  if (favourite.statusCode !== 200) throw new Error(`favourite failed: ${favourite.statusCode} ${favourite.body}`);
  return id;
}

/** A second connection to the app's database file, closed by the caller. */
function openScratch(ctx: TestContext): Db {
  const db = openDatabase(path.join(ctx.dataDir, DATABASE_FILE_NAME));
  // Probe values ignore types, checks and references; every probe is rolled back.
  db.$client.pragma('foreign_keys = OFF');
  db.$client.pragma('ignore_check_constraints = ON');
  return db;
}

/** Runs `probe` in a transaction that is always rolled back. */
function rolledBack<T>(db: Db, probe: () => T): T {
  db.$client.exec('BEGIN IMMEDIATE');
  try {
    return probe();
  } finally {
    db.$client.exec('ROLLBACK');
  }
}

/**
 * Every way the story `id` shows that a story column is missing from a place, as
 * `stories.<column>: <place>: <what is wrong>` lines; empty when the shape is consistent.
 * `restoreTarget` is a second app with an empty library, for the archive's round trip.
 */
async function storyShapeProblems(ctx: TestContext, id: string, restoreTarget: TestContext): Promise<string[]> {
  const client = ctx.app.db.$client;
  const columns = (client.pragma('table_info(stories)') as { name: string }[]).map((column) => column.name);
  const references = new Map(
    (client.pragma('foreign_key_list(stories)') as { from: string; table: string }[]).map((key) => [key.from, key.table]),
  );
  const row = client.prepare('SELECT * FROM stories WHERE id = ?').get(id) as Record<string, unknown>;
  const problems: string[] = [];
  const report = (column: string, place: (typeof PLACES)[number], what: string) => problems.push(`stories.${column}: ${place}: ${what}`);
  const checked = (place: Place) => columns.filter((column) => !NOT_IN[place].includes(column));
  const field = (column: string) => FIELD_OF_COLUMN[column] ?? camel(column);

  for (const column of columns) {
    if (!(column in FIELD_OF_COLUMN)) report(column, 'mapping', 'no entry in FIELD_OF_COLUMN');
    if (row[column] === null) report(column, 'mapping', 'the probe story leaves it null: give it a value in createFullStory');
  }
  for (const column of Object.keys(FIELD_OF_COLUMN)) if (!columns.includes(column)) report(column, 'mapping', 'not a column any more');
  for (const [place, list] of Object.entries(NOT_IN)) {
    for (const column of list) if (!columns.includes(column)) report(column, place as Place, 'allow-listed but not a column any more');
  }

  const nameOf: NameOf = (table, key) => client.prepare(`SELECT name FROM ${table} WHERE id = ?`).pluck().get(key);
  /** Field present, and showing the column's value (so a field fed by the wrong column shows up). */
  const compare = (place: Place, shown: Record<string, unknown>, convert: Record<string, (value: unknown) => unknown> = {}) => {
    for (const column of checked(place)) {
      const other = SHOWN_AS[place]?.[column];
      const name = other?.field ?? field(column);
      const expected = other !== undefined ? other.value(row, nameOf) : (convert[column] ?? ((value: unknown) => value))(row[column]);
      if (!(name in shown)) report(column, place, `no field \`${name}\``);
      else if (shown[name] !== expected) {
        report(column, place, `\`${name}\` is ${JSON.stringify(shown[name])}, expected ${JSON.stringify(expected)} from the column`);
      }
    }
  };
  const only = (place: Place, found: unknown[], convert: Record<string, (value: unknown) => unknown> = {}) => {
    if (found.length === 1) compare(place, found[0] as Record<string, unknown>, convert);
    else problems.push(`${place}: the probe story gave ${found.length} rows`);
  };

  compare('dto', (await ctx.get(`/api/stories/${id}`)).json() as Record<string, unknown>, { favourite: (value) => value === 1 });

  const search = (await ctx.get('/api/stories/search?query=lighthouse')).json() as { results: Record<string, unknown>[] };
  const hit = search.results.find((result) => result.id === id);
  if (hit === undefined) problems.push('the probe story is not found by searching its title');
  else compare('searchHit', hit, { favourite: (value) => value === 1 });

  const schemaFields = new Set(collectionSchema('stories', 'shape').fields.map((schemaField) => schemaField.name));
  for (const column of checked('typesenseSchema')) {
    if (!schemaFields.has(field(column))) report(column, 'typesenseSchema', `no field \`${field(column)}\` in the stories collection`);
  }

  const document = readStoryDocuments(ctx.app.db, [id]).get(id);
  if (document === undefined) problems.push('no Typesense document for the probe story');
  else compare('typesenseDocument', document as unknown as Record<string, unknown>, { ...TYPESENSE_VALUE, favourite: (value) => value === 1 });

  // Words for the FTS probes: a column that references a named table gets a fresh row named by it.
  const probes = new Map<string, { word: string; value: unknown }>();
  for (const column of checked('ftsDocument')) {
    const word = `zqprobe${column.replace(/_/g, '')}`;
    const table = references.get(column);
    if (table === undefined) probes.set(column, { word, value: word });
    else if (NAMED_ROW_ENDPOINT[table] === undefined) report(column, 'ftsDocument', `references ${table}: add it to NAMED_ROW_ENDPOINT`);
    else probes.set(column, { word, value: ((await ctx.post(NAMED_ROW_ENDPOINT[table], { name: word })).json() as { id: string }).id });
  }

  const plain = openScratch(ctx);
  try {
    const findable = plain.$client.prepare<[string, number]>('SELECT 1 FROM stories_fts WHERE stories_fts MATCH ? AND rowid = ?');
    for (const [column, { word, value }] of probes) {
      const found = rolledBack(plain, () => {
        plain.$client.prepare(`UPDATE stories SET "${column}" = ? WHERE id = ?`).run(value, id);
        syncSearchDocuments(plain);
        return findable.get(word, row.seq as number) !== undefined;
      });
      if (!found) report(column, 'ftsDocument', `a word written into it is not found through stories_fts after the sync`);
    }
  } finally {
    plain.$client.close();
  }

  const withTypesense = openScratch(ctx);
  try {
    installOutboxTriggers(withTypesense);
    const marked = withTypesense.$client.prepare<[string]>("SELECT 1 FROM search_dirty WHERE kind = 'story' AND uid = ?");
    for (const column of checked('typesenseTrigger')) {
      const reached = rolledBack(withTypesense, () => {
        withTypesense.$client.exec('DELETE FROM search_dirty');
        withTypesense.$client.prepare(`UPDATE stories SET "${column}" = ? WHERE id = ?`).run(`changed ${column}`, id);
        return marked.get(id) !== undefined;
      });
      if (!reached) report(column, 'typesenseTrigger', 'changing it alone does not mark the story, so Typesense never hears of it');
    }
  } finally {
    withTypesense.$client.close();
  }

  only('card', loadStoryCards(ctx.app.db, [id]), { favourite: (value) => value === 1 });
  only('opdsEntry', loadOpdsStories(ctx.app.db, [id]));
  only('epubRow', loadBookStories(ctx.app.db, [id]));

  const job = await restoreArchive(restoreTarget, await exportArchive(ctx));
  if (job.status !== 'done' || job.failed !== 0) problems.push(`archiveRoundTrip: the restore ended ${job.status} with ${JSON.stringify(job.errors)}`);
  const restored = restoreTarget.app.db.$client.prepare('SELECT * FROM stories WHERE id = ?').get(id) as Record<string, unknown> | undefined;
  if (restored === undefined) problems.push('archiveRoundTrip: the probe story is not in the restored library');
  else {
    for (const column of checked('archiveRoundTrip')) {
      if (restored[column] !== row[column]) {
        report(column, 'archiveRoundTrip', `restored as ${JSON.stringify(restored[column])}, exported from ${JSON.stringify(row[column])}`);
      }
    }
  }
  return problems;
}

t.test('every story column is carried by every place that shows, indexes or syncs a story', async (t) => {
  const ctx = await buildTestApp(t);
  const id = await createFullStory(ctx);
  t.strictSame(await storyShapeProblems(ctx, id, await buildTestApp(t)), []);
});

t.test('a column added to the story table is reported in every place, by name', async (t) => {
  const ctx = await buildTestApp(t);
  const id = await createFullStory(ctx);
  ctx.app.db.$client.exec(`ALTER TABLE stories ADD COLUMN shape_probe TEXT`);
  ctx.app.db.$client.prepare(`UPDATE stories SET shape_probe = 'calm' WHERE id = ?`).run(id);
  // The restored library has the column too: the export must carry it there.
  const target = await buildTestApp(t);
  target.app.db.$client.exec(`ALTER TABLE stories ADD COLUMN shape_probe TEXT`);

  const problems = await storyShapeProblems(ctx, id, target);
  const reported = problems.filter((problem) => problem.startsWith('stories.shape_probe: ')).map((problem) => problem.split(': ')[1]);
  t.strictSame(reported, [...PLACES], problems.join('\n'));
  t.strictSame(
    problems.filter((problem) => !problem.startsWith('stories.shape_probe: ')),
    [],
    'no other column is reported',
  );
});
