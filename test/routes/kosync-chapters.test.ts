/**
 * KOReader sync in a book of chapters (docs/decisions.md, "KOReader sync"): the spine names the
 * story and chapter of each document, so a KOReader position in chapter k is chapter k of the web
 * reader (its block in that chapter, the fraction of the whole work) and back; a chapter split
 * over several documents keeps its block numbers; a book made before chapters (one page per
 * story, a spine of story ids) still maps to chapter 1.
 */
import t from 'tap';
import { epubRenditions } from '../../src/db/schema.js';
import type { SpineDocument } from '../../src/epub/documents.js';
import { koreaderPartialMd5 } from '../../src/epub/partial-md5.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { download } from '../helpers/epub.js';
import { createStory } from '../helpers/factories.js';
import { deviceToken, koreader } from '../helpers/kosync.js';

const paragraphs = (n: number, word: string) => Array.from({ length: n }, (_, i) => `<p>${word} ${i} ${'words '.repeat(9)}</p>`).join('');

/** The saved progress row, chapter included (the web API shows `chapter` once the reader saves it). */
function savedProgress(ctx: TestContext, storyId: string) {
  return ctx.app.db.$client.prepare('SELECT chapter, position, progress FROM reading_progress WHERE story_id = ?').get(storyId) as
    | { chapter: number | null; position: string | null; progress: number }
    | undefined;
}

function spineOf(ctx: TestContext, hash: string): Array<SpineDocument | string | null> {
  const row = ctx.app.db.select().from(epubRenditions).all().find((r) => r.hash === hash);
  return JSON.parse(row!.spine);
}

t.test('a KOReader position in chapter 3 round-trips', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const story = await createStory(ctx, {
    title: 'Chaptered',
    chapters: [
      { title: 'One', contentHtml: paragraphs(10, 'One') },
      { title: 'Two', contentHtml: paragraphs(10, 'Two') },
      { title: 'Three', contentHtml: `${paragraphs(6, 'Three')}<blockquote><p>quoted</p></blockquote>${paragraphs(3, 'Three more')}` },
      { title: 'Four', contentHtml: paragraphs(10, 'Four') },
    ],
  });
  const { bytes } = await download(ctx, `/api/stories/${story.id}/epub`);
  const document = koreaderPartialMd5(bytes);
  const spine = spineOf(ctx, document);
  t.match(spine, [null, { story: story.id, chapter: 1 }, { chapter: 2 }, { chapter: 3, heads: ['h2'], from: 0, to: 10 }, { chapter: 4 }]);

  // DocFragment 4 is chapter 3 (the title page is 1); its page is the h2 heading, then the chapter's blocks: p[5] is block 4.
  const put = await client('update_progress', { document, progress: '/body/DocFragment[4]/body/p[5]/text().3', percentage: 0.55, device: 'Kobo', device_id: 'K' });
  t.equal(put.status, 200);
  t.same(savedProgress(ctx, story.id), { chapter: 3, position: '4', progress: 0.55 }, 'chapter 3, its block 4; the fraction of the whole work');
  t.match((await client('get_progress', { document })).body, { progress: '/body/DocFragment[4]/body/p[5]/text().3', device: 'Kobo' }, "KOReader's own pointer while nothing moved");

  await client('update_progress', { document, progress: '/body/DocFragment[4]/body/blockquote/p/text().0', percentage: 0.6, device: 'Kobo', device_id: 'K' });
  t.same(savedProgress(ctx, story.id), { chapter: 3, position: '6', progress: 0.6 }, 'a unique element: the blockquote is block 6');

  // A new file of the same chapters (a tag is in the book): the web position becomes an xpointer into chapter 3's document.
  t.equal((await ctx.put(`/api/stories/${story.id}`, { tagNames: ['serial'] })).statusCode, 200);
  const fresh = koreaderPartialMd5((await download(ctx, `/api/stories/${story.id}/epub`)).bytes);
  t.not(fresh, document);
  t.match((await client('get_progress', { document: fresh })).body, { progress: '/body/DocFragment[4]/body/blockquote.0', percentage: 0.6, device: 'Storyshelf' });
  await client('update_progress', { document: fresh, progress: '/body/DocFragment[4]/body/p[5].0', percentage: 0.55, device: 'Kobo', device_id: 'K' });
  t.same(savedProgress(ctx, story.id), { chapter: 3, position: '4', progress: 0.55 });
  t.match((await client('get_progress', { document })).body, { progress: '/body/DocFragment[4]/body/p[5].0', device: 'Storyshelf' }, 'and back into the first file');

  // Chapter 3's text changes: its blocks no longer mean the same, only the chapter and fraction are kept.
  t.equal((await ctx.put(`/api/stories/${story.id}/chapters/3`, { contentHtml: paragraphs(2, 'New') })).statusCode, 200);
  await client('update_progress', { document, progress: '/body/DocFragment[4]/body/p[2].0', percentage: 0.52, device: 'Kobo', device_id: 'K' });
  t.same(savedProgress(ctx, story.id), { chapter: 3, position: null, progress: 0.52 });
  t.match((await client('get_progress', { document: fresh })).body, { progress: '/body/DocFragment[4].0', percentage: 0.52 }, "the start of chapter 3's document");
  // Chapter 4 did not change: still paragraph-exact in the old file.
  await client('update_progress', { document, progress: '/body/DocFragment[5]/body/p[3].0', percentage: 0.9, device: 'Kobo', device_id: 'K' });
  t.same(savedProgress(ctx, story.id), { chapter: 4, position: '2', progress: 0.9 });
});

t.test('a chapter split over documents keeps its block numbers; a series book gives the fraction of the work', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const long = Array.from({ length: 300 }, (_, i) => `<p>Long ${i} ${'and the road went on. '.repeat(60)}</p>`).join('');
  const first = await createStory(ctx, { title: 'Prologue', seriesName: 'Road', volume: 1, contentHtml: paragraphs(2, 'P') });
  const story = await createStory(ctx, {
    title: 'The road',
    seriesName: 'Road',
    volume: 2,
    chapters: [
      { title: 'Short', contentHtml: paragraphs(300, 'S') },
      { title: 'Long', contentHtml: long },
    ],
  });
  const seriesId = (await ctx.get(`/api/stories/${first.id}`)).json().seriesId as string;
  const document = koreaderPartialMd5((await download(ctx, `/api/series/${seriesId}/epub`)).bytes);
  const spine = spineOf(ctx, document) as Array<SpineDocument | null>;
  t.match(spine, [null, { chapter: 1 }, { chapter: 1, heads: ['h1', 'h2'] }, { chapter: 2, from: 0, heads: ['h2'] }, { chapter: 2, heads: [] }]);
  const split = spine[4]!.from;
  t.ok(split > 100 && split < 300, `the long chapter's second document starts at block ${split}`);

  await client('update_progress', { document, progress: '/body/DocFragment[5]/body/p[3]/text().0', percentage: 0.9, device: 'Kobo', device_id: 'K' });
  const saved = savedProgress(ctx, story.id)!;
  t.same([saved.chapter, saved.position], [2, String(split + 2)], 'p[3] of the second document is block from + 2 of chapter 2');
  // By words: all of chapter 1, and block split+2 of chapter 2's 300.
  const [short, longOne] = (await ctx.get(`/api/stories/${story.id}/chapters`)).json() as Array<{ wordCount: number }>;
  const expected = (short!.wordCount + ((split + 2) / 300) * longOne!.wordCount) / (short!.wordCount + longOne!.wordCount);
  t.ok(Math.abs(saved.progress - expected) < 1e-9, `the fraction of the whole work (${saved.progress}, ${expected})`);

  t.equal((await ctx.put(`/api/stories/${story.id}`, { rating: 5 })).statusCode, 200);
  await client('update_progress', { document, progress: '/body/DocFragment[3]/body/p[1].0', percentage: 0.3, device: 'Kobo', device_id: 'K' });
  t.same(savedProgress(ctx, story.id), { chapter: 1, position: '0', progress: 0 });
  await ctx.put(`/api/stories/${first.id}/progress`, { progress: 0.5, position: '1' });
  t.match((await client('get_progress', { document })).body, { progress: '/body/DocFragment[2]/body/p[2].0' }, 'the one-chapter volume: its page as before');
});

t.test('a book downloaded before chapters (a spine of story ids) still maps to chapter 1', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const story = await createStory(ctx, { title: 'Old copy', contentHtml: `<h2>Start</h2>${paragraphs(8, 'Old')}` });
  const document = koreaderPartialMd5((await download(ctx, `/api/stories/${story.id}/epub`)).bytes);
  // What the rendition of such a book recorded: the title page, then the story's id.
  ctx.app.db.$client.prepare('UPDATE epub_renditions SET spine = ? WHERE hash = ?').run(JSON.stringify([null, story.id]), document);

  await client('update_progress', { document, progress: '/body/DocFragment[2]/body/p[4]/text().2', percentage: 0.4, device: 'Kobo', device_id: 'K' });
  t.same(savedProgress(ctx, story.id), { chapter: 1, position: '4', progress: 0.4 }, 'p[4] is block 4 (the h2 comes first), chapter 1');
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.7, position: '6' });
  t.match((await client('get_progress', { document })).body, { progress: '/body/DocFragment[2]/body/p[6].0', percentage: 0.7 }, 'a web position before chapters');

  // The story gains chapters: the old page's blocks are no longer chapter 1's, only the fraction is kept.
  t.equal((await ctx.post(`/api/stories/${story.id}/chapters`, { title: 'More', contentHtml: paragraphs(2, 'More') })).statusCode, 201);
  await client('update_progress', { document, progress: '/body/DocFragment[2]/body/p[4].0', percentage: 0.3, device: 'Kobo', device_id: 'K' });
  t.same(savedProgress(ctx, story.id), { chapter: null, position: null, progress: 0.3 });
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.35, position: '1' });
  t.match((await client('get_progress', { document })).body, { progress: '/body/DocFragment[2].0', percentage: 0.35 }, 'the start of the story');
});

t.test('a position in a chapter deleted since the book was made is still a 200 and keeps the fraction', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const story = await createStory(ctx, {
    title: 'Shrinking',
    chapters: [
      { title: 'One', contentHtml: paragraphs(4, 'One') },
      { title: 'Two', contentHtml: paragraphs(4, 'Two') },
      { title: 'Three', contentHtml: paragraphs(4, 'Three') },
    ],
  });
  const document = koreaderPartialMd5((await download(ctx, `/api/stories/${story.id}/epub`)).bytes);
  t.equal((await ctx.del(`/api/stories/${story.id}/chapters/3`)).statusCode, 200);

  // DocFragment 4 was chapter 3, which the story no longer has: KOReader understands only 200 here.
  for (const progress of ['/body/DocFragment[4]/body/p[2].0', '/body/DocFragment[4].0']) {
    const put = await client('update_progress', { document, progress, percentage: 0.8, device: 'Kobo', device_id: 'K' });
    t.equal(put.status, 200, progress);
    t.same(savedProgress(ctx, story.id), { chapter: null, position: null, progress: 0.8 }, 'the fraction, no chapter');
  }
});
