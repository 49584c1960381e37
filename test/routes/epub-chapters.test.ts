/**
 * A story's chapters in its EPUB (docs/decisions.md, "EPUB export"): one XHTML document per
 * chapter, a long chapter split between paragraphs under 300 KB, the contents listing chapters by
 * title (nested under their story in a book of several), and the title page and package metadata
 * carrying every author, the language, the status and the source's dates.
 */
import t from 'tap';
import { MAX_DOCUMENT_BYTES } from '../../src/epub/documents.js';
import { buildTestApp } from '../helpers/app.js';
import { download, entryText, readZip, xmlElements, xmlTexts } from '../helpers/epub.js';
import { createStory } from '../helpers/factories.js';

const paragraphs = (n: number, word: string) => Array.from({ length: n }, (_, i) => `<p>${word} ${i}</p>`).join('');
/** About 1.3 KB a paragraph: 300 of them make a chapter of some 400 KB. */
const longParagraphs = (n: number) => Array.from({ length: n }, (_, i) => `<p>Long ${i} ${'and the road went on. '.repeat(60)}</p>`).join('');

t.test('a story of chapters: one document each, a long one split, contents by title, metadata', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, {
    title: 'The Serial',
    authorNames: ['First Writer', 'Second Writer'],
    seriesName: 'Serials',
    volume: 3,
    status: 'complete',
    publishedAt: '2024-01-02T03:04:05.000Z',
    sourceUpdatedAt: '2024-05-13T00:00:00.000Z',
    language: 'fr',
    summary: 'What happens.',
    chapters: [
      { title: 'Arrival', contentHtml: paragraphs(5, 'Arrival') },
      { title: '', contentHtml: longParagraphs(300) },
      { title: 'Departure & after', contentHtml: paragraphs(3, 'Departure') },
    ],
  });
  const { bytes } = await download(ctx, `/api/stories/${story.id}/epub`);
  const entries = await readZip(bytes);
  const pages = entries.filter((e) => /^OEBPS\/story-/.test(e.name));
  t.same(
    pages.map((e) => e.name),
    ['OEBPS/story-0001-0001.xhtml', 'OEBPS/story-0001-0002.xhtml', 'OEBPS/story-0001-0002-p2.xhtml', 'OEBPS/story-0001-0003.xhtml'],
    'one document per chapter, the long one in two',
  );
  for (const page of pages) t.ok(page.bytes.length <= MAX_DOCUMENT_BYTES, `${page.name} is at most 300 KB (${page.bytes.length})`);
  const longParts = pages.slice(1, 3).map((page) => page.bytes.toString('utf8'));
  t.same(
    longParts.flatMap((xhtml) => xmlTexts(xhtml, 'p')),
    Array.from({ length: 300 }, (_, i) => `Long ${i} ${'and the road went on. '.repeat(60)}`),
    'split between paragraphs, none lost or cut',
  );
  t.same(xmlTexts(longParts[0]!, 'h2'), ['Chapter 2'], 'an untitled chapter of several is headed by its number');
  t.same(xmlTexts(longParts[1]!, 'h2'), [], 'a continuation has no heading');
  t.match(entryText(entries, 'OEBPS/story-0001-0003.xhtml'), /<h2 class="chapter-title" id="chapter-3">Departure &amp; after<\/h2>/);

  const nav = entryText(entries, 'OEBPS/nav.xhtml');
  t.same(xmlTexts(nav, 'a'), ['The Serial', 'Arrival', 'Chapter 2', 'Departure & after'], 'the title page, then the chapters by title');
  t.same(
    xmlElements(nav, 'a').map((a) => a.attribs.href),
    ['title.xhtml', 'story-0001-0001.xhtml', 'story-0001-0002.xhtml', 'story-0001-0003.xhtml'],
  );
  t.same(xmlTexts(entryText(entries, 'OEBPS/toc.ncx'), 'text').slice(1), ['The Serial', 'Arrival', 'Chapter 2', 'Departure & after'], 'the NCX lists the same');

  const opf = entryText(entries, 'OEBPS/content.opf');
  t.same(xmlTexts(opf, 'dc:creator'), ['First Writer', 'Second Writer'], 'every author, in order');
  t.same(xmlTexts(opf, 'dc:language'), ['fr'], "the story's language");
  t.same(xmlTexts(opf, 'dc:date'), ['2024-01-02']);
  t.same(
    xmlElements(opf, 'itemref').map((i) => i.attribs.idref),
    ['title-page', 'chapter-1', 'chapter-2', 'chapter-3', 'chapter-4'],
  );
  t.match(entryText(entries, 'OEBPS/story-0001-0001.xhtml'), /xml:lang="fr"/);

  const title = entryText(entries, 'OEBPS/title.xhtml');
  t.match(title, /by First Writer, Second Writer/);
  t.match(title, /Book 3 of Serials/);
  t.match(title, /Language: fr<br\/>Status: Complete<br\/>Published: 2024-01-02<br\/>Updated: 2024-05-13/);
  t.match(title, /What happens\./);

  const again = await download(ctx, `/api/stories/${story.id}/epub`);
  t.ok(again.bytes.equals(bytes), 'the same chapters give the same bytes');
  t.equal((await ctx.put(`/api/stories/${story.id}/chapters/3`, { title: 'Departure' })).statusCode, 200);
  t.notOk((await download(ctx, `/api/stories/${story.id}/epub`)).bytes.equals(bytes), 'a chapter title is in the book: a new file');
});

t.test('a book of several stories lists each story with its chapters under it', async (t) => {
  const ctx = await buildTestApp(t);
  const one = await createStory(ctx, { title: 'Alone', seriesName: 'Pair', volume: 1, contentHtml: paragraphs(2, 'Alone') });
  await createStory(ctx, {
    title: 'In parts',
    seriesName: 'Pair',
    volume: 2,
    language: 'de',
    chapters: [
      { title: 'Eins', contentHtml: paragraphs(2, 'Eins') },
      { title: 'Zwei', contentHtml: paragraphs(2, 'Zwei') },
    ],
  });
  const seriesId = (await ctx.get(`/api/stories/${one.id}`)).json().seriesId as string;
  const entries = await readZip((await download(ctx, `/api/series/${seriesId}/epub`)).bytes);
  const nav = entryText(entries, 'OEBPS/nav.xhtml');
  t.same(xmlTexts(nav, 'a'), ['Pair', 'Alone', 'In parts', 'Eins', 'Zwei']);
  t.same(
    xmlElements(nav, 'a').map((a) => a.attribs.href),
    ['title.xhtml', 'story-0001.xhtml', 'story-0002-0001.xhtml', 'story-0002-0001.xhtml#chapter-1', 'story-0002-0002.xhtml#chapter-2'],
  );
  t.equal(xmlElements(nav, 'ol').length, 2, 'the chapters are a list under their story');
  const ncx = entryText(entries, 'OEBPS/toc.ncx');
  t.equal(xmlElements(ncx, 'meta').find((m) => m.attribs.name === 'dtb:depth')?.attribs.content, '2');
  t.same(xmlElements(ncx, 'navPoint').map((p) => p.attribs.playOrder), ['1', '2', '3', '4', '5']);
  const first = entryText(entries, 'OEBPS/story-0002-0001.xhtml');
  t.same([xmlTexts(first, 'h1'), xmlTexts(first, 'h2')], [['In parts'], ['Eins']], "a story's first page opens with its title, then the chapter's");
  t.match(first, /xml:lang="de"/, "each story's pages in its own language");
  t.same(xmlTexts(entryText(entries, 'OEBPS/content.opf'), 'dc:language'), ['en'], 'stories of different languages: the book says en');
});
