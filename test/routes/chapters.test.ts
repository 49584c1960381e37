/**
 * A story's chapters through the HTTP stack (docs/api.md, "Chapters — /api/stories/{id}/chapters"; docs/decisions.md,
 * "Chapters"): the API's `contentHtml` keeps working as one untitled chapter, `chapters`
 * writes several, and every chapter change keeps the story's whole work, word count and
 * chapter count in step.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { closeDatabase, DATABASE_FILE_NAME, openDatabase } from '../../src/db/open.js';
import { sqliteClient } from '../../src/db/statements.js';
import { migrateSafely } from '../../src/plugins/db-migrate.js';
import { buildTestApp, tempDataDir } from '../helpers/app.js';
import { migrationsCopy } from '../helpers/migrations.js';
import { MISSING_ID } from '../helpers/factories.js';
import { imageFolderFiles, png } from '../helpers/images.js';
import { CHAPTERS_MAX } from '../../src/schemas/chapter.js';

interface Story {
  id: string;
  contentHtml: string | null;
  contentPlain: string | null;
  wordCount: number;
  chapterCount: number;
  authors: { id: string; name: string }[];
  authorId: string | null;
  updatedAt: string;
  chaptersAddedAt: string | null;
}

const THREE = [
  { title: 'Arrival', contentHtml: '<p>One two three.</p>' },
  { title: 'The <b>storm</b>', contentHtml: '<p>Four five.</p><script>alert(1)</script>' },
  { title: 'Departure', contentHtml: '<p>Six.</p>', sourceUrl: 'https://example.org/works/1/chapters/3' },
];

t.test('a story written as chapters: contents, each chapter, and the whole work', async (t) => {
  const ctx = await buildTestApp(t);
  const created = await ctx.post('/api/stories', { title: 'Voyage', chapters: THREE });
  t.equal(created.statusCode, 201, created.body);
  const story = created.json() as Story;
  t.equal(story.chapterCount, 3);
  t.equal(story.wordCount, 6, "the chapters' words, not their headings");
  t.equal(
    story.contentHtml,
    '<h2>Arrival</h2>\n<p>One two three.</p>\n<h2>The &lt;b&gt;storm&lt;/b&gt;</h2>\n<p>Four five.</p>\n<h2>Departure</h2>\n<p>Six.</p>',
    'the whole work: each chapter under its escaped title, the script sanitized away',
  );

  const list = await ctx.get(`/api/stories/${story.id}/chapters`);
  t.equal(list.statusCode, 200);
  t.strictSame(
    (list.json() as { index: number; title: string; wordCount: number; sourceUrl: string | null }[]).map(({ index, title, wordCount, sourceUrl }) => ({ index, title, wordCount, sourceUrl })),
    [
      { index: 1, title: 'Arrival', wordCount: 3, sourceUrl: null },
      { index: 2, title: 'The <b>storm</b>', wordCount: 2, sourceUrl: null },
      { index: 3, title: 'Departure', wordCount: 1, sourceUrl: 'https://example.org/works/1/chapters/3' },
    ],
  );
  const second = await ctx.get(`/api/stories/${story.id}/chapters/2`);
  t.equal(second.statusCode, 200);
  t.match(second.json(), { index: 2, title: 'The <b>storm</b>', contentHtml: '<p>Four five.</p>', contentPlain: 'Four five.', wordCount: 2 });
  t.equal((await ctx.get(`/api/stories/${story.id}/chapters/4`)).statusCode, 404, 'no fourth chapter');
  t.equal((await ctx.get(`/api/stories/${MISSING_ID}/chapters`)).statusCode, 404, 'no such story');
  t.equal((await ctx.get(`/api/stories/${story.id}/chapters/0`)).statusCode, 400, 'indexes start at 1');
});

t.test('the story API without chapters is one untitled chapter, byte-identical; contentHtml replaces every chapter', async (t) => {
  const ctx = await buildTestApp(t);
  const html = '<p>Plain   <em>old</em> story.</p>';
  const story = (await ctx.post('/api/stories', { title: 'Old style', contentHtml: html })).json() as Story;
  t.equal(story.contentHtml, html);
  t.equal(story.chapterCount, 1);
  const chapters = (await ctx.get(`/api/stories/${story.id}/chapters`)).json() as { title: string }[];
  t.strictSame(chapters.map((chapter) => chapter.title), ['']);

  const multi = (await ctx.put(`/api/stories/${story.id}`, { chapters: THREE })).json() as Story;
  t.equal(multi.chapterCount, 3, 'chapters replace the one');
  const flat = (await ctx.put(`/api/stories/${story.id}`, { contentHtml: '<p>Flat again.</p>' })).json() as Story;
  t.equal(flat.chapterCount, 1, 'contentHtml makes it one chapter again');
  t.equal(flat.contentHtml, '<p>Flat again.</p>');
  t.equal(flat.wordCount, 2);

  const both = await ctx.post('/api/stories', { title: 'Both', contentHtml: '<p>x</p>', chapters: THREE });
  t.equal(both.statusCode, 400);
  t.match(both.json(), { error: String, details: { chapters: /either contentHtml or chapters/ } });
  const empty = await ctx.post('/api/stories', { title: 'None', chapters: [] });
  t.equal(empty.statusCode, 400, 'at least one chapter');
  const long = await ctx.post('/api/stories', { title: 'Long title', chapters: [{ title: 'x'.repeat(501), contentHtml: '' }] });
  t.equal(long.statusCode, 400, 'a chapter title is bounded');
  const count = (await ctx.get('/api/stories?size=100')).json() as { totalElements: number };
  t.equal(count.totalElements, 1, 'the refused bodies created nothing');
});

t.test('append, edit and delete keep the whole work, counts and stamps in step', async (t) => {
  const ctx = await buildTestApp(t);
  const story = (await ctx.post('/api/stories', { title: 'Serial', chapters: THREE.slice(0, 2) })).json() as Story;

  const added = await ctx.post(`/api/stories/${story.id}/chapters`, { title: 'Third', contentHtml: '<p>Seven eight nine ten.</p>' });
  t.equal(added.statusCode, 201, added.body);
  t.match(added.json(), { index: 3, title: 'Third', wordCount: 4 });
  let now = (await ctx.get(`/api/stories/${story.id}`)).json() as Story;
  t.equal(now.chapterCount, 3);
  t.equal(now.wordCount, 9);
  t.ok(now.updatedAt > story.updatedAt, 'updatedAt moves on');
  t.type(now.chaptersAddedAt, 'string', 'the append is noted');
  t.match(now.contentHtml, /<h2>Third<\/h2>\n<p>Seven eight nine ten\.<\/p>$/);

  const edited = await ctx.put(`/api/stories/${story.id}/chapters/1`, { title: 'Landfall' });
  t.equal(edited.statusCode, 200);
  t.match(edited.json(), { index: 1, title: 'Landfall', contentHtml: '<p>One two three.</p>' }, 'an absent body keeps the text');
  const rewritten = await ctx.put(`/api/stories/${story.id}/chapters/2`, { contentHtml: '<p>Only this.</p>' });
  t.match(rewritten.json(), { title: 'The <b>storm</b>', wordCount: 2 });
  now = (await ctx.get(`/api/stories/${story.id}`)).json() as Story;
  t.match(now.contentHtml, /^<h2>Landfall<\/h2>/);
  t.equal(now.wordCount, 3 + 2 + 4);

  t.equal((await ctx.del(`/api/stories/${story.id}/chapters/1`)).statusCode, 200);
  const left = (await ctx.get(`/api/stories/${story.id}/chapters`)).json() as { index: number; title: string }[];
  t.strictSame(left.map(({ index, title }) => [index, title]), [[1, 'The <b>storm</b>'], [2, 'Third']], 'the later chapters move up');
  t.equal(((await ctx.get(`/api/stories/${story.id}`)).json() as Story).wordCount, 6);
  t.equal((await ctx.del(`/api/stories/${story.id}/chapters/5`)).statusCode, 404);
  t.equal((await ctx.del(`/api/stories/${story.id}/chapters/1`)).statusCode, 200);
  const last = await ctx.del(`/api/stories/${story.id}/chapters/1`);
  t.equal(last.statusCode, 409, 'never the last chapter');
  t.match(last.json(), { error: /at least one chapter/ });
  t.equal(((await ctx.get(`/api/stories/${story.id}`)).json() as Story).chapterCount, 1);
  t.equal((await ctx.post(`/api/stories/${MISSING_ID}/chapters`, { title: 'x' })).statusCode, 404);
});

t.test('an append past CHAPTERS_MAX is a 409 that adds nothing: every chapter stays addressable by its index', async (t) => {
  const ctx = await buildTestApp(t);
  const full = (await ctx.post('/api/stories', { title: 'Endless', chapters: Array.from({ length: CHAPTERS_MAX }, () => ({})) })).json() as Story;
  t.equal(full.chapterCount, CHAPTERS_MAX);
  const over = await ctx.post(`/api/stories/${full.id}/chapters`, { title: 'One more' });
  t.equal(over.statusCode, 409, over.body);
  t.match(over.json(), { error: /5000 chapters/ });
  const after = (await ctx.get(`/api/stories/${full.id}`)).json() as Story;
  t.equal(after.chapterCount, CHAPTERS_MAX, 'nothing added');
  t.equal(after.updatedAt, full.updatedAt, 'nothing changed');
  t.equal((await ctx.get(`/api/stories/${full.id}/chapters/${CHAPTERS_MAX}`)).statusCode, 200, 'the last chapter still has an index the API takes');
});

t.test("a chapter edit or delete releases the pictures that chapter named, never one another chapter still names", async (t) => {
  const ctx = await buildTestApp(t);
  const folder = path.join(ctx.dataDir, 'images', 'inline');
  fs.mkdirSync(folder, { recursive: true });
  for (const name of ['shared.png', 'own.png']) fs.writeFileSync(path.join(folder, name), png());
  const img = (name: string) => `<p><img src="/api/files/images/inline/${name}" alt=""></p>`;
  const story = (
    await ctx.post('/api/stories', {
      title: 'Illustrated',
      chapters: [{ contentHtml: `<p>One.</p>${img('shared.png')}` }, { contentHtml: `<p>Two.</p>${img('shared.png')}${img('own.png')}` }],
    })
  ).json() as Story;
  const stored = () => imageFolderFiles(ctx.dataDir).sort();

  t.equal((await ctx.del(`/api/stories/${story.id}/chapters/2`)).statusCode, 200);
  t.strictSame(stored(), [path.join('inline', 'shared.png')], "the deleted chapter's own picture goes; the one chapter 1 names stays");
  t.equal((await ctx.put(`/api/stories/${story.id}/chapters/1`, { title: 'Renamed' })).statusCode, 200);
  t.strictSame(stored(), [path.join('inline', 'shared.png')], 'an edit that keeps the text keeps its pictures');
  t.equal((await ctx.put(`/api/stories/${story.id}/chapters/1`, { contentHtml: '<p>Plain now.</p>' })).statusCode, 200);
  t.strictSame(stored(), [], 'a new text without the picture releases it');
});

t.test('every author in order; co-authors count in their storyCount', async (t) => {
  const ctx = await buildTestApp(t);
  const story = (await ctx.post('/api/stories', { title: 'Together', authorNames: ['Ann', 'Bo', 'ann', 'Cy'] })).json() as Story;
  t.strictSame(story.authors.map((author) => author.name), ['Ann', 'Bo', 'Cy'], 'in order, the same name once');
  t.equal(story.authors[0]?.id, story.authorId, 'authors[0] is authorId');
  const bo = story.authors[1]!;
  t.equal(((await ctx.get(`/api/authors/${bo.id}`)).json() as { storyCount: number }).storyCount, 1, 'a co-author counts the story');
  const conflict = await ctx.post('/api/stories', { title: 'x', authorName: 'Ann', authorNames: ['Bo'] });
  t.equal(conflict.statusCode, 400);
  t.match(conflict.json(), { details: { authorNames: String } });

  const swapped = (await ctx.put(`/api/stories/${story.id}`, { authorName: 'Bo' })).json() as Story;
  t.strictSame(swapped.authors.map((author) => author.name), ['Bo', 'Cy'], 'a co-author who becomes the first is listed once');
  t.equal((await ctx.del(`/api/stories/${story.id}`)).statusCode, 200);
  t.equal(((await ctx.get(`/api/authors/${bo.id}`)).json() as { storyCount: number }).storyCount, 0, 'counts follow the delete');
});

t.test('the migration makes each stored story one chapter with its text byte-identical', async (t) => {
  const dir = tempDataDir(t);
  const old = openDatabase(path.join(dir, DATABASE_FILE_NAME));
  const log = { info() {}, warn() {}, error() {}, debug() {} } as never;
  await migrateSafely(old, dir, log, migrationsCopy(dir, 16)); // up to 0015: stories without chapters
  const html = '<p>Kept   exactly,\n<em>as stored</em>.</p>';
  const now = '2026-11-21T10:00:00.000Z';
  const insert = old.$client.prepare('INSERT INTO stories (id, title, content_html, content_plain, word_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  insert.run('7d1c2f3e-0000-4000-8000-000000000001', 'Before chapters', html, 'Kept exactly, as stored.', 4, now, now);
  insert.run('7d1c2f3e-0000-4000-8000-000000000002', 'Bare', null, null, 0, now, now);
  closeDatabase(old);

  const after = await buildTestApp(t, { DATA_DIR: dir });
  const migrated = (await after.get('/api/stories/7d1c2f3e-0000-4000-8000-000000000001')).json() as Story;
  t.equal(migrated.contentHtml, html, 'contentHtml byte-identical');
  t.equal(migrated.chapterCount, 1);
  t.match((await after.get(`/api/stories/${migrated.id}/chapters/1`)).json(), { index: 1, title: '', contentHtml: html, wordCount: 4 });
  const bare = (await after.get('/api/stories/7d1c2f3e-0000-4000-8000-000000000002')).json() as Story;
  t.equal(bare.contentHtml, null, 'no body stays null');
  t.equal(bare.chapterCount, 1);
  t.equal(sqliteClient(after.app.db).prepare('SELECT count(*) FROM story_chapters').pluck().get(), 2);
});
