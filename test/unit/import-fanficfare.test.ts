/**
 * FanFicFare's real files (test/fixtures/fanficfare, its README says how each was made) read by
 * the parser the import worker runs: chapters, the pages that are not text, typed metadata.
 */
import path from 'node:path';
import t from 'tap';
import { parseFile, type ParsedStory } from '../../src/import/parse.js';
import { chapterTextOf } from '../../src/import/story-input.js';
import { assembleWork } from '../../src/stories/chapter-text.js';
import { parseEpub } from '../../src/import/epub.js';
import { zipOf } from '../helpers/import.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare');

async function parsed(name: string): Promise<ParsedStory> {
  const result = await parseFile(path.join(DIR, name), name);
  if ('error' in result) throw new Error(result.error);
  return result.story;
}

/** The whole work as the story stores it. */
function whole(story: ParsedStory) {
  return assembleWork(story.chapters.map(chapterTextOf));
}

const S1_TITLES = [
  "Prologue tests:[bare amp(&) qt(') amp(&) gt(>) lt(<) ATnT(AT&T) L(£) Onna(女)]",
  'Chapter 1, Xenos on Cinnabar',
  'Chapter 2, Sinmay on Kintikin',
  'Chapter 3, "Over" Cinnabar',
  'Chapter 4 & 4.5',
  'Chapter 5 < 5.4',
  'Chapter A & B < C > D',
  'Chapter 7',
  'Chapter 8',
];

t.test('EPUB 2 and EPUB 3: one chapter per story document, titled as FanFicFare titled it; the title page is metadata, not text', async (t) => {
  for (const name of ['test1-s1.epub', 'test1-s1-epub3.epub']) {
    const story = await parsed(name);
    t.same(
      story.chapters.map((chapter) => chapter.title),
      S1_TITLES,
      `${name}: nine chapters`,
    );
    t.equal(story.chapters[1]?.sourceKey, 'http://test1.com?sid=1&chapter=2', 'the chapter URL is its key');
    t.equal(story.chapters[1]?.sourceUrl, 'http://test1.com?sid=1&chapter=2');
    const plain = whole(story).contentPlain ?? '';
    t.notMatch(plain, /Packaged:|Publisher:|Title Page/, 'no title page in the text');
    t.notMatch(plain, /Timestamp:/, 'no download time in the text');
    t.match(story.chapters[1]?.text.contentHtml, /^\s*<div>\s*<h3>Chapter title from site<\/h3>/, "FanFicFare's own chapter heading is the title, the site's heading stays");
    t.notMatch(story.chapters[1]?.text.contentHtml, /fff_chapter_title|Xenos on Cinnabar<\/h3>/);
    t.equal(whole(story).wordCount, 2846, 'the word count is the chapters: 3,070 before (title page, chapter headings and download times counted)');
    t.equal(
      whole(story).wordCount,
      story.chapters.reduce((sum, chapter) => sum + chapter.text.wordCount, 0),
    );
    t.match(story, {
      title: 'Test Story Title 1',
      authorNames: ['Test Author aa'],
      uid: 'fanficfare-uid:test1.com-u98765-s1',
      sourceUrl: 'http://test1.com?sid=1',
      status: 'in-progress',
      publishedAt: '1975-03-15T00:00:00.000Z',
      sourceUpdatedAt: '1975-04-15T00:00:00.000Z',
      language: 'en',
      seriesName: 'The Great Test',
      volume: 1,
    });
    t.match(story.summary, /^Description tests:\[bare amp\(&\)/);
  }
});

t.test('typed tags from the title page; bookkeeping subjects never tags; the twice-escaped & read once', async (t) => {
  const story = await parsed('test1-s1.epub');
  const byKind = (kind: string) => (story.tags ?? []).filter((tag) => tag.kind === kind).map((tag) => tag.name);
  t.same(byKind('fandom'), ['Furbie', 'Harry Potter', 'Magical Girl Lyrical Nanoha', 'Once Upon a Time (TV)', 'Puella Magi Madoka Magica/魔法少女まどか★マギカ']);
  t.same(byKind('freeform'), ['Comedy', 'Fantasy', 'Noir', 'Sci-Fi']);
  t.same(byKind('character'), ['Bob Smith', 'Fred Smythe', 'George Johnson']);
  t.same(byKind('relationship'), ['Harry Potter & Hermione Granger', 'Harry Potter/Ginny Weasley', 'Harry Potter/Ginny Weasley/Albus Dumbledore']);
  t.same(byKind('warning'), ['Swearing', 'Violence']);
  t.same(byKind('rating'), ['Tweenie']);
  const names = (story.tags ?? []).map((tag) => tag.name);
  t.equal(names.length, 18, 'every tag once: the subjects the title page types are not repeated untyped');
  for (const bookkeeping of ['FanFiction', 'In-Progress', 'Last Update: 1975/04/15', 'Last Update Year/Month: 1975/04']) t.notOk(names.includes(bookkeeping), bookkeeping);
  t.notOk(names.some((name) => name.includes('&amp;')));
  t.equal((await parsed('test1-s2-complete.epub')).status, 'complete');
  t.same((await parsed('test1-s5-titlepage-table.epub')).tags, story.tags, 'the table form of the title page reads the same');
});

t.test('every author in order; series from calibre or the title page; a title full of markup; toc and log pages left out', async (t) => {
  const many = await parsed('test1-s673-authors.epub');
  t.equal(many.authorNames?.length, 20);
  t.same(many.authorNames?.slice(0, 3), ['Test Author aa', 'Author From List 1', 'Author From List 2']);
  t.ok(many.tags?.some((tag) => tag.name === 'Power Rangers' && tag.kind === 'fandom'));
  t.equal(many.seriesName, undefined);
  t.match(await parsed('test1-s3-calibre-series.epub'), { seriesName: 'The Great Test', volume: 3 });
  t.equal((await parsed('test1-s664-markup.epub')).title, "Test Story Title 664tests:[bare amp(&) qt(') amp(&) gt(>) lt(<) ATnT(AT&T) L(£) Onna(女)]");
  const logged = await parsed('test1-s7-toc-log.epub');
  t.equal(logged.chapters.length, 9);
  t.notMatch(whole(logged).contentPlain, /Table of Contents|Update Log/);
  t.equal(whole(logged).wordCount, 2846, '3,219 before: the contents and log pages were counted');
  const grown = await parsed('grow-v1.epub');
  t.match(grown, { language: 'en', seriesName: 'The Great Test', volume: 4, uid: 'fanficfare-uid:test1.com-u45-s1000' });
  t.equal(whole(grown).wordCount, 854, '930 before');
  const forty = await parsed('test4-s40.epub');
  t.equal(forty.chapters.length, 40);
  t.equal(whole(forty).wordCount, 11718, '12,147 before');
  t.equal(new Set(forty.chapters.map((chapter) => chapter.sourceKey)).size, 40, 'keys stay unique when the site gives two chapters one address');
});

t.test("FanFicFare's HTML and TXT outputs give the same chapters and metadata as its EPUB", async (t) => {
  const epub = await parsed('test1-s1.epub');
  for (const name of ['test1-s1.html', 'test1-s1.txt']) {
    const story = await parsed(name);
    t.same(story.chapters.map((chapter) => chapter.title), S1_TITLES, name);
    t.same(
      story.chapters.map((chapter) => chapter.text.wordCount),
      epub.chapters.map((chapter) => chapter.text.wordCount),
      `${name}: the same words in each chapter`,
    );
    t.match(story, { title: 'Test Story Title 1', authorNames: ['Test Author aa'], sourceUrl: 'http://test1.com?sid=1', status: 'in-progress', seriesName: 'The Great Test', volume: 1 });
    t.same(story.tags, epub.tags, `${name}: the same typed tags`);
    t.notMatch(whole(story).contentPlain, /Timestamp:|TABLE OF CONTENTS|Table of Contents|Packaged:|End file\./);
  }
  const plain = await parseFile(path.join(DIR, 'README.md').replace(/README\.md$/, 'personal-v1.ini'), 'notes.txt');
  t.ok('story' in plain && plain.story.chapters.length === 1, 'a text file that is not FanFicFare output is one chapter');
});

const CONTAINER = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`;
const page = (title: string, body: string) => `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>${title}</title></head><body>${body}</body></html>`;

t.test('another EPUB 3: landmarks and the nav document keep cover, title page and contents out; nav titles; pictures taken out of the book', async (t) => {
  const opf = `<?xml version="1.0"?><package version="3.0" xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Book</dc:title><dc:creator id="a1">Ann</dc:creator><dc:creator id="e1">Ed</dc:creator><meta refines="#e1" property="role">edt</meta><dc:creator>Bo</dc:creator><dc:subject>Fluff</dc:subject><dc:language>pt-BR</dc:language></metadata>
<manifest><item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/><item id="cover" href="text/cover.xhtml" media-type="application/xhtml+xml"/><item id="tp" href="text/title.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/c1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/c2.xhtml" media-type="application/xhtml+xml"/><item id="img" href="images/map.png" media-type="image/png"/></manifest>
<spine><itemref idref="cover"/><itemref idref="tp"/><itemref idref="nav"/><itemref idref="c1"/><itemref idref="c2"/></spine></package>`;
  const nav = page('Nav', `<nav epub:type="toc"><ol><li><a href="text/c1.xhtml">One: Start</a></li><li><a href="text/c2.xhtml#x">Two</a></li></ol></nav><nav epub:type="landmarks"><ol><li><a epub:type="cover" href="text/cover.xhtml">Cover</a></li><li><a epub:type="titlepage" href="text/title.xhtml">Title</a></li></ol></nav>`);
  const book = await zipOf([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    { name: 'META-INF/container.xml', data: CONTAINER },
    { name: 'OPS/book.opf', data: opf },
    { name: 'OPS/nav.xhtml', data: nav },
    { name: 'OPS/text/cover.xhtml', data: page('Cover', '<p>COVER WORDS</p>') },
    { name: 'OPS/text/title.xhtml', data: page('Title', '<p>TITLE PAGE WORDS</p>') },
    { name: 'OPS/text/c1.xhtml', data: page('c1', '<h1>One: Start</h1><p>First <img src="../images/map.png" alt="map"/><img src="../images/map.png"/><img src="https://tracker.example/x.png"/><img src="../images/missing.png"/></p>') },
    { name: 'OPS/text/c2.xhtml', data: page('c2', '<h2>Heading of two</h2><p>Second.</p>') },
    { name: 'OPS/images/map.png', data: Buffer.from('not checked here') },
  ]);
  const story = await parseEpub(book);
  t.same(story.authorNames, ['Ann', 'Bo'], 'an editor is no author');
  t.equal(story.language, 'pt-BR');
  t.same(story.tags, [{ name: 'Fluff' }], 'another program\'s subjects are tags without a kind');
  t.same(story.chapters.map((chapter) => chapter.title), ['One: Start', 'Two'], 'the nav titles; the heading that repeats one is dropped');
  const [one, two] = story.chapters;
  t.notMatch(one?.html, /One: Start/);
  t.match(two?.html, /<h2>Heading of two<\/h2>/, 'a heading that is not the title stays');
  t.equal(story.images?.length, 1, 'one picture, named twice');
  const placeholder = story.images?.[0]?.placeholder ?? '';
  t.match(placeholder, /^\/api\/files\/images\/inline\/epub-[0-9a-f]{12}-0\.png$/);
  t.equal(one?.html.split(placeholder).length, 3, 'both <img> name the placeholder');
  t.notMatch(one?.html, /tracker\.example|missing\.png/, 'a picture outside the book, or missing from it, is removed, never hot-linked');
  t.equal(Buffer.from(story.images?.[0]?.bytes ?? []).toString(), 'not checked here');
});

t.test('an EPUB 2 guide keeps its cover and contents out', async (t) => {
  const opf = `<?xml version="1.0"?><package version="2.0" xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf"><dc:title>Guide</dc:title><dc:date opf:event="publication">2020-02-03</dc:date></metadata>
<manifest><item id="cover" href="cover.html" media-type="application/xhtml+xml"/><item id="toc" href="toc.html" media-type="application/xhtml+xml"/><item id="c1" href="c1.html" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="cover"/><itemref idref="toc"/><itemref idref="c1"/></spine><guide><reference type="cover" href="cover.html"/><reference type="toc" href="toc.html#start"/></guide></package>`;
  const book = await zipOf([
    { name: 'META-INF/container.xml', data: CONTAINER },
    { name: 'OPS/book.opf', data: opf },
    { name: 'OPS/cover.html', data: page('Cover', '<p>COVER</p>') },
    { name: 'OPS/toc.html', data: page('Contents', '<p>CONTENTS</p>') },
    { name: 'OPS/c1.html', data: page('Guide', '<p>Only chapter.</p>') },
  ]);
  const story = await parseEpub(book);
  t.same(story.chapters, [{ title: '', html: '<p>Only chapter.</p>' }]);
  t.equal(story.publishedAt, '2020-02-03T00:00:00.000Z');
});
