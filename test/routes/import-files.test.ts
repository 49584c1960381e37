import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ErrorBody } from '../../src/schemas/common.js';
import { JobDto, JobStarted } from '../../src/schemas/job.js';
import { STORY_AUTHORS_MAX, StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { fanficEpub, postImport, waitForJob, zipOf } from '../helpers/import.js';
import { assertMatches } from '../helpers/schema.js';

async function storiesOf(ctx: TestContext): Promise<StoryDto[]> {
  const res = await ctx.get('/api/stories?size=100&sort=title,asc');
  return res.json().content as StoryDto[];
}

async function importAndWait(t: Test, ctx: TestContext, files: Parameters<typeof postImport>[1]): Promise<JobDto> {
  const res = await postImport(ctx, files);
  t.equal(res.statusCode, 202, res.body);
  assertMatches(t, JobStarted, res.json());
  const job = await waitForJob(ctx, res.json().jobId);
  assertMatches(t, JobDto, job);
  return job;
}

t.test('a FanFicFare EPUB becomes a story with its title, author, series and volume, tags, summary and source URL', async (t) => {
  const ctx = await buildTestApp(t);
  const job = await importAndWait(t, ctx, [{ filename: 'long-way.epub', data: await fanficEpub() }]);
  t.match(job, { kind: 'import-files', status: 'done', total: 1, done: 1, failed: 0, errors: [] });
  t.ok(job.startedAt !== null && job.finishedAt !== null, 'started and finished stamps');
  const [story] = await storiesOf(ctx);
  t.match(story, {
    title: 'The Long Way Home',
    authorName: 'Quill Writer',
    seriesName: 'Desert Tales',
    volume: 2,
    summary: 'Two friends cross a desert.',
    sourceUrl: 'https://fanfic.example/s/12345/1/',
  });
  t.same(story?.tags.map((tag) => tag.name), ['adventure', 'found family', 'slow burn']);
  t.match(story?.contentHtml, /<h2>Chapter 1: Sand<\/h2>[\s\S]*first chapter[\s\S]*<h2>Chapter 2: Stars<\/h2>[\s\S]*under the stars/);
  t.notMatch(story?.contentHtml, /<img/, "a picture the EPUB names but does not hold is removed");
  t.equal(fs.existsSync(path.join(ctx.dataDir, 'jobs', job.id)), false, 'the upload folder is removed when the job ends');
  const search = await ctx.get('/api/stories/search?query=stars');
  t.equal(search.json().results?.[0]?.id, story?.id, 'the story is in the search index');
});

t.test('a file naming more authors than a story may have keeps the first ones, as many as a story body may name', async (t) => {
  const ctx = await buildTestApp(t);
  const names = Array.from({ length: STORY_AUTHORS_MAX + 10 }, (_, n) => `Writer ${n + 1}`);
  const job = await importAndWait(t, ctx, [{ filename: 'anthology.epub', data: await fanficEpub({ authors: names }) }]);
  t.match(job, { status: 'done', done: 1, failed: 0 });
  const [story] = await storiesOf(ctx);
  t.same(
    story?.authors.map((author) => author.name),
    names.slice(0, STORY_AUTHORS_MAX),
    'a story the API could not have written would not survive an edit or a restored archive',
  );
});

t.test('HTML, text and Markdown files: titles, paragraphs, the sanitizer applied', async (t) => {
  const ctx = await buildTestApp(t);
  const job = await importAndWait(t, ctx, [
    { filename: 'page.html', data: '<html><head><title>A Page Title</title><script>alert(1)</script></head><body><h1>Heading</h1><p onclick="x()">Body <b>bold</b></p><script>alert(2)</script></body></html>' },
    { filename: 'heading-only.htm', data: '<body><h1>From The Heading</h1><p>text</p></body>' },
    { filename: 'notes on a train.txt', data: 'First paragraph\nsecond line.\n\nSecond <paragraph> & more.\n' },
    { filename: 'doc.md', data: '# Markdown Title\n\nSome *emphasis* and **strength**.\n\n## Part two\n\nEnd.' },
  ]);
  t.match(job, { status: 'done', total: 4, done: 4, failed: 0 });
  const byTitle = new Map((await storiesOf(ctx)).map((story) => [story.title, story]));
  t.same([...byTitle.keys()].sort(), ['A Page Title', 'From The Heading', 'Markdown Title', 'notes on a train']);
  const page = byTitle.get('A Page Title');
  t.match(page?.contentHtml, /<h1>Heading<\/h1><p>Body <b>bold<\/b><\/p>/);
  t.notMatch(page?.contentHtml, /script|onclick|alert/, 'scripts and handlers removed');
  t.equal(byTitle.get('notes on a train')?.contentHtml, '<p>First paragraph<br />second line.</p>\n<p>Second &lt;paragraph&gt; &amp; more.</p>');
  t.equal(
    byTitle.get('Markdown Title')?.contentHtml,
    '<h1>Markdown Title</h1>\n<p>Some <em>emphasis</em> and <strong>strength</strong>.</p>\n<h2>Part two</h2>\n<p>End.</p>',
  );
  t.equal(byTitle.get('notes on a train')?.wordCount, 7, 'words counted as for any story');
});

t.test('a ZIP of several formats imports each story file; other entries are passed over', async (t) => {
  const ctx = await buildTestApp(t);
  const archive = await zipOf([
    { name: 'stories/one.html', data: '<title>One</title><p>one</p>' },
    { name: 'stories/two.txt', data: 'two' },
    { name: 'three.md', data: '# Three\n\nthree' },
    { name: 'books/four.epub', data: await fanficEpub({ title: 'Four', source: 'https://fanfic.example/s/4/1/' }) },
    { name: '__MACOSX/stories/._one.html', data: 'junk' },
    { name: 'cover.jpg', data: 'not a story' },
  ]);
  const job = await importAndWait(t, ctx, [{ filename: 'bundle.zip', data: archive }]);
  t.match(job, { status: 'done', total: 4, done: 4, failed: 0 });
  t.same((await storiesOf(ctx)).map((story) => story.title).sort(), ['Four', 'One', 'Three', 'two']);
});

t.test('unsafe archives are refused whole: a path climbing out, a symbolic link, an entry over the size cap (zip bomb)', async (t) => {
  const ctx = await buildTestApp(t);
  // yazl refuses to write `..`; the name is patched in afterwards (same length, both headers).
  const slip = await zipOf([{ name: 'xx/evil.html', data: '<p>evil</p>' }, { name: 'fine.txt', data: 'fine' }]);
  const patched = Buffer.from(slip.toString('latin1').replaceAll('xx/evil.html', '../evil.html'), 'latin1');
  const link = await zipOf([{ name: 'link.html', data: '/etc/passwd', mode: 0o120777 }]);
  const bomb = await zipOf([{ name: 'bomb.html', data: Buffer.alloc(17 * 1024 * 1024, 0x61) }, { name: 'small.txt', data: 'small' }]);
  t.ok(bomb.length < 200_000, `the bomb is small compressed (${bomb.length} bytes)`);
  const job = await importAndWait(t, ctx, [
    { filename: 'slip.zip', data: patched },
    { filename: 'link.zip', data: link },
    { filename: 'bomb.zip', data: bomb },
    { filename: 'good.txt', data: 'a good file' },
  ]);
  t.match(job, { status: 'done', done: 2, failed: 3 });
  const errors = new Map(job.errors.map((entry) => [entry.file, entry.error]));
  t.match(errors.get('slip.zip'), /refused|invalid|relative/);
  t.match(errors.get('link.zip'), /symbolic link/);
  t.match(errors.get('bomb.zip/bomb.html'), /over 16777216 bytes/);
  t.same((await storiesOf(ctx)).map((story) => story.title).sort(), ['good', 'small']);
});

t.test('a broken file is an entry in errors and the job goes on; the same work again is matched to its story, not imported twice', async (t) => {
  const ctx = await buildTestApp(t);
  const epub = await fanficEpub();
  const first = await importAndWait(t, ctx, [
    { filename: 'broken.epub', data: 'this is not a zip' },
    { filename: 'good.epub', data: epub },
  ]);
  t.match(first, { status: 'done', total: 2, done: 1, failed: 1, errors: [{ file: 'broken.epub', error: /not a readable ZIP/ }] });
  const second = await importAndWait(t, ctx, [{ filename: 'again.epub', data: epub }]);
  const [story] = await storiesOf(ctx);
  t.same(second.errors, [{ file: 'again.epub', error: `already up to date: the story ${story?.id} ("The Long Way Home"): 0 chapters added, 0 replaced, 2 unchanged` }]);
  t.match(second, { status: 'done', done: 1, failed: 0 });
  t.equal((await storiesOf(ctx)).length, 1);
});

t.test('a request the importer cannot take changes nothing: other formats 415, no file 400, not multipart 415', async (t) => {
  const ctx = await buildTestApp(t);
  const wrong = await postImport(ctx, [{ filename: 'ok.txt', data: 'fine' }, { filename: 'picture.png', data: 'png' }]);
  t.equal(wrong.statusCode, 415);
  t.match(wrong.json(), { error: /picture\.png/, details: { file: /\.epub/ } });
  const none = await postImport(ctx, []);
  t.equal(none.statusCode, 400);
  t.match(none.json(), { details: { file: 'is required' } });
  const many = await postImport(ctx, Array.from({ length: 101 }, (_, index) => ({ filename: `${index}.txt`, data: 'x' })));
  t.equal(many.statusCode, 413, 'more than 100 files');
  assertMatches(t, ErrorBody, many.json());
  const json = await ctx.post('/api/import/files', { file: 'x' });
  t.equal(json.statusCode, 415);
  t.same((await ctx.get('/api/jobs')).json().jobs, [], 'no job');
  t.same(fs.readdirSync(path.join(ctx.dataDir, 'jobs')), [], 'no upload left on disk');
});

t.test('an import interrupted by a restart completes on the next start without duplicates', async (t) => {
  const dataDir = tempDataDir(t);
  const before = await buildTestApp(t, { DATA_DIR: dataDir });
  const files = Array.from({ length: 6 }, (_, index) => ({ filename: `story-${index}.txt`, data: `Story number ${index}.` }));
  const archive = await zipOf(files.map((file) => ({ name: file.filename, data: file.data })));
  const res = await postImport(before, [{ filename: 'six.zip', data: archive }, { filename: 'seventh.md', data: '# Seventh\n\ntext' }]);
  t.equal(res.statusCode, 202);
  await before.app.close();
  const after = await buildTestApp(t, { DATA_DIR: dataDir });
  const job = await waitForJob(after, res.json().jobId);
  t.match(job, { status: 'done', total: 7, done: 7, failed: 0 });
  const titles = (await storiesOf(after)).map((story) => story.title);
  t.equal(titles.length, 7, `seven stories, none twice: ${titles.join(', ')}`);
  t.equal(new Set(titles).size, 7);
});

const ENCODINGS = path.join(import.meta.dirname, '../fixtures/encodings');

t.test('text files in the encodings editors save import as the same text, nothing replaced (fixtures made with iconv)', async (t) => {
  const ctx = await buildTestApp(t);
  const names = fs.readdirSync(ENCODINGS).filter((name) => name.endsWith('.txt')).sort();
  t.equal(names.length, 6);
  const job = await importAndWait(t, ctx, names.map((name) => ({ filename: name, data: fs.readFileSync(path.join(ENCODINGS, name)) })));
  t.match(job, { status: 'done', total: 6, done: 6, failed: 0, errors: [] });
  const stories = await storiesOf(ctx);
  const reference = stories.find((story) => story.title === 'harbour.utf-8');
  t.match(reference?.contentPlain, /^The Harbour at Saint-Rémy\n\n“You’re late,” said Élodie/);
  t.equal(reference?.wordCount, 59);
  for (const story of stories) {
    t.equal(story.contentPlain, reference?.contentPlain, `${story.title}: the same text`);
    t.equal(story.wordCount, 59, `${story.title}: the same word count`);
    t.notMatch(story.contentHtml, /[\u0000\uFFFD]/, `${story.title}: no NUL, no replacement character`);
  }
});

t.test('what decoding loses is said in the job result: NULs removed, invalid bytes under a byte-order mark', async (t) => {
  const ctx = await buildTestApp(t);
  const job = await importAndWait(t, ctx, [
    { filename: 'nul.txt', data: Buffer.from('one\0two three', 'utf8') },
    { filename: 'broken-bom.txt', data: Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x20, 0xff, 0x20, 0x62]) },
    { filename: 'odd-utf16.txt', data: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('word', 'utf16le'), Buffer.from([0x41])]) },
    { filename: 'real.txt', data: Buffer.from('a replacement \uFFFD the author typed', 'utf8') },
  ]);
  t.match(job, { status: 'done', total: 4, done: 4, failed: 0 }, 'imported, not failed');
  const errors = new Map(job.errors.map((entry) => [entry.file, entry.error]));
  t.same([...errors.keys()].sort(), ['broken-bom.txt', 'nul.txt', 'odd-utf16.txt'], 'a character the source held is no loss');
  t.match(errors.get('nul.txt'), /^imported, but 1 NUL character was removed$/);
  t.match(errors.get('broken-bom.txt'), /^imported, but 1 sequence was not valid utf-8 and is shown as \uFFFD$/);
  t.match(errors.get('odd-utf16.txt'), /not valid utf-16le/);
  const byTitle = new Map((await storiesOf(ctx)).map((story) => [story.title, story]));
  t.equal(byTitle.get('nul')?.contentPlain, 'onetwo three');
  t.equal(byTitle.get('real')?.contentPlain, 'a replacement \uFFFD the author typed');
});

t.test('a pandoc metadata block gives the title, the first author and the date, and is not story text', async (t) => {
  const ctx = await buildTestApp(t);
  const markdown = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/pandoc/harbour.md'));
  const job = await importAndWait(t, ctx, [
    { filename: 'harbour.md', data: markdown },
    { filename: 'crlf.md', data: '---\r\ntitle: "Windows \\"Lines\\""\r\nauthor: [Ann Author, Bob]\r\n---\r\n\r\nText.\r\n' },
    { filename: 'no-block.md', data: '---\n\ntitle: not metadata\n\nText.' },
  ]);
  t.match(job, { status: 'done', done: 3, failed: 0, errors: [] });
  const byTitle = new Map((await storiesOf(ctx)).map((story) => [story.title, story]));
  const story = byTitle.get('The Harbour: a Storm Story');
  t.equal(story?.authorName, 'Élodie Marchand', 'the first author');
  t.match(story?.contentHtml, /^<p class="date">14 March 2024<\/p>\n<h1>Chapter One<\/h1>/, 'the date opens the body, as in pandoc\'s title block');
  t.notMatch(story?.contentPlain, /title:|author:|keywords|abstract|Harbour Press|\.\.\./, 'no YAML in the text');
  t.match(byTitle.get('Windows "Lines"'), { authorName: 'Ann Author', contentHtml: '<p>Text.</p>' });
  t.match(byTitle.get('no-block')?.contentPlain, /title: not metadata/, 'a --- followed by a blank line is no metadata block (pandoc)');
});
