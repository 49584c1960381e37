/**
 * EPUB export through the real HTTP stack (docs/decisions.md, "EPUB export"): the container's
 * order and compression, the package metadata (calibre series metas, belongs-to-collection,
 * subjects, source, modified), navigation, embedded images, byte-for-byte determinism and its
 * record in `epub_renditions`, series/tag/search books, hostile HTML and authentication.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { epubRenditions, series, stories } from '../../src/db/schema.js';
import { MAX_BOOK_STORIES } from '../../src/epub/service.js';
import { koreaderPartialMd5 } from '../../src/epub/partial-md5.js';
import { buildTestApp } from '../helpers/app.js';
import { download, uploadImage, entryText, readZip, xmlElements, xmlTexts } from '../helpers/epub.js';
import { createStory, createTag, MISSING_ID } from '../helpers/factories.js';
import * as img from '../helpers/images.js';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');


t.test('a story book: container, metadata, navigation, image, determinism, rendition', async (t) => {
  const ctx = await buildTestApp(t);
  const coverPath = await uploadImage(ctx, img.jpeg(), 'cover.jpg', 'image/jpeg');
  const inlinePath = await uploadImage(ctx, img.png(), 'inline.png', 'image/png');
  const webpPath = await uploadImage(ctx, img.webp(), 'w.webp', 'image/webp');
  const story = await createStory(ctx, {
    title: 'Zoë’s “Night”',
    authorName: 'Ann Writer',
    seriesName: 'The Long Road',
    volume: 2,
    tagNames: ['beta', 'alpha'],
    summary: 'A short summary & more.',
    sourceUrl: 'https://example.com/story/1',
    coverPath,
    contentHtml: `<p>One</p><img src="/api/files/images/${inlinePath}" alt="a picture"><p>Three <img src="https://remote.example/x.png" alt="remote art"></p><p><img src="/api/files/images/${webpPath}" alt="webp art"></p>`,
  });

  const { res, bytes } = await download(ctx, `/api/stories/${story.id}/epub`);
  t.equal(res.headers['content-type'], 'application/epub+zip');
  const disposition = String(res.headers['content-disposition']);
  t.match(disposition, /^attachment; filename="[\x20-\x7e]+\.epub"; filename\*=UTF-8''/);
  t.match(disposition, /filename="Zoe_s _Night_ - Ann Writer\.epub"/, 'ASCII fallback strips accents, replaces the rest');
  t.ok(disposition.includes(`filename*=UTF-8''${encodeURIComponent('Zoë’s “Night” - Ann Writer.epub')}`), 'the real name in filename*');
  t.equal(res.headers.etag, `"${koreaderPartialMd5(bytes)}"`);

  const entries = await readZip(bytes);
  t.same(
    entries.slice(0, 8).map((e) => e.name),
    ['mimetype', 'META-INF/container.xml', 'OEBPS/content.opf', 'OEBPS/nav.xhtml', 'OEBPS/toc.ncx', 'OEBPS/style.css', 'OEBPS/title.xhtml', 'OEBPS/story-0001.xhtml'],
  );
  t.equal(entries[0]!.method, 0, 'mimetype is stored');
  t.equal(entries[0]!.bytes.toString(), 'application/epub+zip');
  t.equal(bytes.subarray(30, 38).toString(), 'mimetype', 'mimetype is the first local file, with no extra field');

  const opf = entryText(entries, 'OEBPS/content.opf');
  t.same(xmlTexts(opf, 'dc:identifier'), [`urn:uuid:${story.id}`]);
  t.same(xmlTexts(opf, 'dc:title'), ['Zoë’s “Night”']);
  t.same(xmlTexts(opf, 'dc:creator'), ['Ann Writer']);
  t.same(xmlTexts(opf, 'dc:language'), ['en']);
  t.same(xmlTexts(opf, 'dc:subject'), ['alpha', 'beta']);
  t.same(xmlTexts(opf, 'dc:description'), ['A short summary & more.']);
  t.same(xmlTexts(opf, 'dc:source'), ['https://example.com/story/1']);
  const updatedAt = ctx.app.db.$client.prepare('SELECT updated_at AS u FROM stories WHERE id = ?').get(story.id) as { u: string };
  const metas = xmlElements(opf, 'meta');
  const byProperty = (p: string) => metas.find((m) => m.attribs.property === p);
  const byName = (n: string) => metas.find((m) => m.attribs.name === n)?.attribs.content;
  t.equal(byProperty('dcterms:modified')?.children.map((c) => ('data' in c ? c.data : '')).join(''), `${updatedAt.u.slice(0, 19)}Z`);
  t.equal(byName('calibre:series'), 'The Long Road');
  t.equal(byName('calibre:series_index'), '2');
  t.equal(byName('cover'), 'cover-image');
  t.ok(byProperty('belongs-to-collection'), 'EPUB 3 collection');

  const items = xmlElements(opf, 'item');
  for (const item of items) t.ok(entries.some((e) => e.name === `OEBPS/${item.attribs.href}`), `manifest item ${item.attribs.href} is in the zip`);
  const cover = items.find((i) => i.attribs.properties === 'cover-image');
  t.equal(cover?.attribs['media-type'], 'image/jpeg');
  t.same(entries.find((e) => e.name === `OEBPS/${cover?.attribs.href}`)?.bytes, img.jpeg(), 'the cover bytes are the stored ones');
  t.same(xmlElements(opf, 'itemref').map((i) => i.attribs.idref), ['title-page', 'chapter-1']);

  const chapter = entryText(entries, 'OEBPS/story-0001.xhtml');
  const images = xmlElements(chapter, 'img');
  t.equal(images.length, 1, 'only the own PNG is embedded');
  const embedded = entries.find((e) => e.name === `OEBPS/${images[0]!.attribs.src}`);
  t.same(embedded?.bytes, img.png(), 'the story image is embedded from the store');
  t.match(chapter, /<span class="image-alt">remote art<\/span>/, 'a remote image becomes its alt text');
  t.match(chapter, /<span class="image-alt">webp art<\/span>/, 'a WebP image becomes its alt text');
  t.notMatch(chapter, /remote\.example/, 'nothing remote is referenced');

  t.same(xmlElements(entryText(entries, 'OEBPS/nav.xhtml'), 'a').map((a) => a.attribs.href), ['story-0001.xhtml'], 'a one-story book lists its story once, not its title page too');
  t.same(xmlElements(entryText(entries, 'OEBPS/toc.ncx'), 'content').map((c) => c.attribs.src), ['story-0001.xhtml'], 'and so does the NCX');
  const ncx = entryText(entries, 'OEBPS/toc.ncx');
  t.equal(xmlElements(ncx, 'meta').find((m) => m.attribs.name === 'dtb:uid')?.attribs.content, `urn:uuid:${story.id}`);

  const again = await download(ctx, `/api/stories/${story.id}/epub`);
  t.equal(md5(again.bytes), md5(bytes), 'the same story version gives the same bytes');

  const edit = await ctx.put(`/api/stories/${story.id}`, { contentHtml: '<p>Changed</p>' });
  t.equal(edit.statusCode, 200);
  const edited = await download(ctx, `/api/stories/${story.id}/epub`);
  t.not(md5(edited.bytes), md5(bytes), 'an edit changes the bytes');

  const rows = ctx.app.db.select().from(epubRenditions).all().filter((r) => !r.byName);
  t.equal(rows.length, 2, 'one rendition per distinct file');
  const first = rows.find((r) => r.hash === koreaderPartialMd5(bytes));
  t.match(first && { kind: first.kind, entityKey: first.entityKey, modified: first.modified, spine: JSON.parse(first.spine), texts: JSON.parse(first.texts ?? '[]') }, {
    kind: 'story',
    entityKey: story.id,
    modified: updatedAt.u,
    spine: [null, { story: story.id, chapter: 1, from: 0, to: 4, heads: ['h1'], text: /^[0-9a-f]{32}$/ }],
    texts: [/^[0-9a-f]{32}$/],
  });
});

t.test('series, tag and search books; 404s; 401 without a token', async (t) => {
  const ctx = await buildTestApp(t);
  const tag = await createTag(ctx, 'shelfword');
  const ids: Record<number, string> = {};
  for (const volume of [3, 1, 2]) {
    const story = await createStory(ctx, { title: `Part ${volume}`, seriesName: 'Trilogy', volume, authorName: `Writer ${volume % 2}`, tagNames: ['shelfword'], contentHtml: `<p>Zephyrine volume ${volume}</p>` });
    ids[volume] = story.id as string;
  }
  const seriesId = (await ctx.get(`/api/stories/${ids[1]}`)).json().seriesId as string;

  const series = await readZip((await download(ctx, `/api/series/${seriesId}/epub`)).bytes);
  const opf = entryText(series, 'OEBPS/content.opf');
  t.same(xmlTexts(opf, 'dc:title'), ['Trilogy']);
  t.same(xmlTexts(opf, 'dc:creator').sort(), ['Writer 0', 'Writer 1']);
  t.same(xmlTexts(entryText(series, 'OEBPS/nav.xhtml'), 'a'), ['Trilogy', 'Part 1', 'Part 2', 'Part 3'], 'stories in volume order');
  const seriesRow = ctx.app.db.select().from(epubRenditions).all().find((r) => r.kind === 'series');
  t.same(
    JSON.parse(seriesRow!.spine).map((item: { story: string; chapter: number } | null) => item && [item.story, item.chapter]),
    [null, [ids[1], 1], [ids[2], 1], [ids[3], 1]],
  );

  const tagBook = await readZip((await download(ctx, `/api/tags/${tag.id}/epub`)).bytes);
  t.same(xmlTexts(entryText(tagBook, 'OEBPS/content.opf'), 'dc:title'), ['Tag: shelfword']);
  t.equal(tagBook.filter((e) => /story-\d+\.xhtml$/.test(e.name)).length, 3);

  const search = await download(ctx, '/api/search/epub?query=zephyrine&limit=2');
  const found = await readZip(search.bytes);
  t.equal(found.filter((e) => /story-\d+\.xhtml$/.test(e.name)).length, 2, 'the limit bounds the book');
  t.match(String(search.res.headers['content-disposition']), /filename="Search_ zephyrine\.epub"/);

  t.equal((await ctx.get('/api/search/epub?query=nothingmatchesthis')).statusCode, 404);
  t.equal((await ctx.get('/api/search/epub?query=x&limit=201')).statusCode, 400);
  t.equal((await ctx.get(`/api/stories/${MISSING_ID}/epub`)).statusCode, 404);
  t.equal((await ctx.get(`/api/series/${MISSING_ID}/epub`)).statusCode, 404);
  t.equal((await ctx.get(`/api/tags/${MISSING_ID}/epub`)).statusCode, 404);
  const bearer = async (scopes: string[]) => {
    const token = (await ctx.post('/api/tokens', { name: scopes.join(' '), scopes })).json().token as string;
    return ctx.app.inject({ method: 'GET', url: `/api/stories/${ids[1]}/epub`, headers: { authorization: `Bearer ${token}` } });
  };
  t.equal((await bearer(['read'])).statusCode, 200, 'a device token with the read scope downloads books');
  const readToken = (await ctx.post('/api/tokens', { name: 'opds', scopes: ['read'] })).json().token as string;
  const viaOpds = await ctx.app.inject({ method: 'GET', url: `/opds/k/${readToken}/stories/${ids[1]}.epub` });
  t.equal(viaOpds.statusCode, 200, "the OPDS catalog's acquisition link, in the path form");
  t.equal(viaOpds.headers['content-type'], 'application/epub+zip');
  t.same(viaOpds.rawPayload, (await download(ctx, `/api/stories/${ids[1]}/epub`)).bytes, 'the same file as the API');
  t.equal((await ctx.app.inject({ method: 'GET', url: `/opds/k/sst_wrong/stories/${ids[1]}.epub` })).statusCode, 401);
  t.equal((await bearer(['progress'])).statusCode, 403, 'one without it does not');
  for (const url of [`/api/stories/${ids[1]}/epub`, `/api/series/${seriesId}/epub`, `/api/tags/${tag.id}/epub`, '/api/search/epub?query=x']) {
    const res = await ctx.app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 401, `${url} needs a token`);
  }
});

t.test('hostile HTML becomes well-formed XHTML with the same top-level blocks', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, {
    title: 'Hostile <&> "quotes"',
    contentHtml:
      '<p>Unclosed <b>bold <i>italic</p><p>Entities &amp; &nbsp; &eacute; &#x1F600; &lt;script&gt;</p>loose text<br>after break' +
      '<table><tr><td>a<td>b</tr><tr><th scope="bad">c</table><script>alert(1)</script>' +
      '<ul><p>not li</p><li>li</li>text</ul><li>stray</li><h2><p>para in heading</p></h2>' +
      '<a href="/relative">rel</a><a href="http://example.com/a b">space</a><strike>old</strike>' +
      '<span><ul><li>in span</li></ul></span><dl><dt>t</dt>x<dd>d</dd></dl><td colspan="0">stray cell</td>',
  });
  const entries = await readZip((await download(ctx, `/api/stories/${story.id}/epub`)).bytes);
  const chapter = entryText(entries, 'OEBPS/story-0001.xhtml');
  t.notMatch(chapter, /<script|alert\(1\)|<strike|<li>stray|<td colspan="0"|scope="bad"|href="\/relative"/);
  t.match(chapter, /href="http:\/\/example\.com\/a%20b"/, 'URLs are normalized');
  t.match(chapter, /<div class="loose">loose text<\/div>/);
  t.match(chapter, /<ul><li><p>not li<\/p><\/li><li>li<\/li><li>text<\/li><\/ul>/, 'list children wrapped in li');
  t.match(chapter, /<h2><span>para in heading<\/span><\/h2>/, 'a block inside a heading becomes a span');
  t.match(chapter, /<tbody><tr><td>a<\/td><td>b<\/td><\/tr>/, 'rows grouped in tbody');
  t.match(chapter, /&amp; \u00a0 é 😀 &lt;script&gt;/, 'entities decoded once and re-escaped');
});

t.test('a book holds at most 200 stories: 413 beyond', async (t) => {
  const ctx = await buildTestApp(t);
  const seriesId = randomUUID();
  const stamp = '2026-01-02T03:04:05.678Z';
  ctx.app.db.insert(series).values({ id: seriesId, name: 'Huge', nameKey: 'huge', createdAt: stamp, updatedAt: stamp }).run();
  const text = `<p>${'A sentence of a typical story paragraph. '.repeat(25)}</p>`.repeat(5);
  const rows = Array.from({ length: MAX_BOOK_STORIES }, (_, i) => ({ id: randomUUID(), title: `Chapter ${i}`, contentHtml: text, seriesId, volume: i, createdAt: stamp, updatedAt: stamp }));
  ctx.app.db.insert(stories).values(rows).run();

  const started = performance.now();
  const full = await download(ctx, `/api/series/${seriesId}/epub`);
  t.comment(`${MAX_BOOK_STORIES} stories of ~5 KB: ${Math.round(performance.now() - started)} ms, ${full.bytes.length} bytes`);
  t.equal((await readZip(full.bytes)).filter((e) => /story-\d+\.xhtml$/.test(e.name)).length, MAX_BOOK_STORIES);

  ctx.app.db.insert(stories).values({ id: randomUUID(), title: 'One too many', seriesId, createdAt: stamp, updatedAt: stamp }).run();
  const res = await ctx.get(`/api/series/${seriesId}/epub`);
  t.equal(res.statusCode, 413);
  t.match(res.json(), { error: /at most 200 stories/, details: { stories: String } });
});

t.test('a long title cut where an emoji sits still downloads: the name is cut before the pair, not inside it', async (t) => {
  const ctx = await buildTestApp(t);
  // 119 units, then a two-unit emoji: the file name's 120-unit cut falls between its halves.
  const story = await createStory(ctx, { title: `${'a'.repeat(119)}🌊 and more` });
  const res = await ctx.get(`/api/stories/${story.id}/epub`);
  t.equal(res.statusCode, 200, 'not a 500 from encoding half an emoji');
  t.ok(String(res.headers['content-disposition']).includes(`filename*=UTF-8''${'a'.repeat(119)}.epub`), 'the name ends before the emoji');
});
