/**
 * Real FanFicFare files (test/fixtures/fanficfare) and an EPUB with pictures imported through
 * `POST /api/import/files` and its job, read back through the API.
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { JobDto } from '../../src/schemas/job.js';
import type { StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { gif, png } from '../helpers/images.js';
import { postImport, waitForJob, zipOf } from '../helpers/import.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare');

async function importFiles(t: Test, ctx: TestContext, files: Array<{ filename: string; data: Buffer }>): Promise<JobDto> {
  const res = await postImport(ctx, files);
  t.equal(res.statusCode, 202, res.body);
  return waitForJob(ctx, res.json().jobId);
}

async function onlyStory(ctx: TestContext): Promise<StoryDto> {
  const list = (await ctx.get('/api/stories?size=10')).json().content as StoryDto[];
  return list[0] as StoryDto;
}

t.test('a FanFicFare EPUB: the chapters under their titles, no title page in the text or the word count, no bookkeeping tags', async (t) => {
  const ctx = await buildTestApp(t);
  const job = await importFiles(t, ctx, [{ filename: 'story.epub', data: fs.readFileSync(path.join(DIR, 'test1-s1.epub')) }]);
  t.match(job, { status: 'done', done: 1, failed: 0, errors: [] });
  const story = await onlyStory(ctx);
  t.match(story, { title: 'Test Story Title 1', authorName: 'Test Author aa', seriesName: 'The Great Test', volume: 1, sourceUrl: 'http://test1.com/?sid=1' });
  t.equal(story.wordCount, 2846, 'the nine chapters only (3,070 before)');
  t.match(story.contentHtml, /<h2>Chapter 1, Xenos on Cinnabar<\/h2>[\s\S]*<h2>Chapter 8<\/h2>/);
  t.notMatch(story.contentHtml, /Packaged|Timestamp:|fff_/);
  const tags = story.tags.map((tag) => tag.name);
  t.ok(tags.includes('harry potter & hermione granger'), 'the twice-escaped & read once');
  for (const bookkeeping of ['fanfiction', 'in-progress', 'last update: 1975/04/15']) t.notOk(tags.includes(bookkeeping), bookkeeping);
  t.ok(tags.includes('tweenie') && tags.includes('swearing'), 'rating and warnings from the title page');
});

function pictureBook(): Promise<Buffer> {
  const opf = `<?xml version="1.0"?><package version="2.0" xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Pictures</dc:title></metadata>
<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`;
  return zipOf([
    { name: 'META-INF/container.xml', data: `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="book.opf"/></rootfiles></container>` },
    { name: 'book.opf', data: opf },
    {
      name: 'c1.xhtml',
      data: `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Pictures</title></head><body><p>A map: <img src="img/map.png" alt="the map"/> and a gif <img src="img/old.gif"/>.</p></body></html>`,
    },
    { name: 'img/map.png', data: png() },
    { name: 'img/old.gif', data: gif() },
  ]);
}

t.test("an EPUB's pictures are stored and served like an imported web page's; one the store refuses is left out and said", async (t) => {
  const ctx = await buildTestApp(t);
  const job = await importFiles(t, ctx, [{ filename: 'pictures.epub', data: await pictureBook() }]);
  t.match(job, { status: 'done', done: 1, failed: 0 });
  t.same(job.errors, [{ file: 'pictures.epub', error: 'imported, but 1 pictures were not JPEG, PNG or WebP images and were left out' }]);
  const story = await onlyStory(ctx);
  const sources = [...(story.contentHtml ?? '').matchAll(/<img[^>]*src="([^"]+)"/g)].map((match) => match[1]);
  t.equal(sources.length, 1, 'the gif is gone');
  t.match(sources[0], /^\/api\/files\/images\/inline\/[0-9a-f-]{36}\.png$/);
  t.match(story.contentHtml, /alt="the map"/);
  const served = await ctx.get(sources[0] as string);
  t.equal(served.statusCode, 200);
  t.equal(served.headers['content-type'], 'image/png');
  t.equal(fs.readdirSync(path.join(ctx.dataDir, 'images', 'inline')).length, 1, 'only the stored picture on disk');
});
