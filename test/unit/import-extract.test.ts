import t from 'tap';
import { decodeHtml } from '../../src/import/decode-text.js';
import { extractStory, withoutSiteName } from '../../src/import/html-story.js';
import { IMAGE_PLACEHOLDER } from '../../src/import/image-placeholder.js';
import { parseSrcset, rankCandidates } from '../../src/import/image-sources.js';
import { storyParagraphs } from '../helpers/fixture-site.js';

const TEXT = storyParagraphs(['rain', 'on', 'the', 'harbour', 'roofs', 'woke', 'the', 'town']);

t.test('the site name is cut from either end of the title only when the page names the site', async (t) => {
  t.equal(withoutSiteName('The Keeper – Tales Weekly', 'Tales Weekly'), 'The Keeper');
  t.equal(withoutSiteName('Tales Weekly | The Keeper', 'tales weekly'), 'The Keeper');
  t.equal(withoutSiteName('Part One - The Keeper — Tales Weekly', 'Tales Weekly'), 'Part One - The Keeper');
  t.equal(withoutSiteName('Before - After', null), 'Before - After', 'no site name: a dash is part of the title');
  t.equal(withoutSiteName('Before - After', 'Elsewhere'), 'Before - After');
});

t.test('metadata: JSON-LD author and headline, og:site_name, description; Readability for the body', async (t) => {
  const html = `<html><head><title>Harbour Rain | Quay Stories</title>
<meta property="og:site_name" content="Quay Stories">
<meta name="description" content="A wet night.">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Article","headline":"Harbour Rain","author":[{"@type":"Person","name":"Ana Ruiz"},{"@type":"Person","name":"Bo Chen"}]}]}</script>
<script type="application/ld+json">{ broken</script>
</head><body><article>${TEXT}</article></body></html>`;
  const story = extractStory(html, 'https://quay.example/rain', 50);
  t.ok(story);
  t.equal(story?.title, 'Harbour Rain');
  t.equal(story?.authorName, 'Ana Ruiz, Bo Chen');
  t.equal(story?.summary, 'A wet night.');
  t.match(story?.contentHtml, /rain on the harbour roofs/);
});

t.test('profile URLs and handles are not author names; "By" is dropped from a byline', async (t) => {
  const page = (meta: string) => `<html><head><title>T</title>${meta}</head><body><article>${TEXT}</article></body></html>`;
  t.equal(extractStory(page('<meta property="article:author" content="https://facebook.com/someone">'), 'https://x.example/', 5)?.authorName ?? null, null);
  t.equal(extractStory(page('<meta name="author" content="@someone">'), 'https://x.example/', 5)?.authorName ?? null, null);
  t.equal(extractStory(page('<meta name="author" content="By  Kim  Lee">'), 'https://x.example/', 5)?.authorName, 'Kim Lee');
});

t.test('images become numbered placeholders with absolute URLs to try, best first; lazy sources count; at most maxImages', async (t) => {
  const images = Array.from({ length: 5 }, (_, n) => `<img src="/i/${n}.png" srcset="/i/${n}@2x.png 2x" alt="${n}">`).join('');
  const html = `<html><body><article>${TEXT}<p>${images}<img data-src="lazy.jpg" alt="lazy"><img src="data:image/png;base64,AAAA" alt="inline data"></p></article></body></html>`;
  const story = extractStory(html, 'https://pics.example/story/1', 3);
  t.same(story?.imageSources, [0, 1, 2].map((n) => [`https://pics.example/i/${n}@2x.png`, `https://pics.example/i/${n}.png`]), 'the 2x candidate first, src after it');
  const placeholders = [...(story?.contentHtml ?? '').matchAll(/src="([^"]+)"/g)].map((match) => match[1]);
  t.same(placeholders, [`${IMAGE_PLACEHOLDER}0`, `${IMAGE_PLACEHOLDER}1`, `${IMAGE_PLACEHOLDER}2`], 'the rest are removed');
  t.notMatch(story?.contentHtml, /srcset/);
  const lazy = extractStory(`<html><body><article>${TEXT}<p><img data-src="lazy.jpg" alt="lazy"></p></article></body></html>`, 'https://pics.example/story/1', 3);
  t.same(lazy?.imageSources, [['https://pics.example/story/lazy.jpg']]);
});

t.test('a page without article text is no story', async (t) => {
  t.equal(extractStory('<html><body><nav><a href="/">Home</a></nav></body></html>', 'https://x.example/', 5), undefined);
  t.equal(extractStory('', 'https://x.example/', 5), undefined);
  t.equal(extractStory('<!-- nothing -->', 'https://x.example/', 5), undefined);
});

t.test('a bare fragment (no <html>) is read as a whole document', async (t) => {
  const story = extractStory(TEXT, 'https://x.example/a', 5);
  t.match(story?.contentHtml, /rain on the harbour roofs/);
  t.equal(story?.title, 'x.example', 'no title anywhere: the host name');
});

t.test('charset: BOM, then the transport, then <meta>, then UTF-8 when valid, then windows-1252', async (t) => {
  const sjis = Buffer.concat([Buffer.from('<meta charset="shift_jis"><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b])]);
  t.equal(decodeHtml(sjis), '<meta charset="shift_jis"><p>日本');
  const cp1251 = Buffer.from([0xcc, 0xe8, 0xf0]);
  t.equal(decodeHtml(cp1251, 'windows-1251'), 'Мир', 'the Content-Type charset');
  t.equal(decodeHtml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<meta charset="windows-1251">é')]), 'windows-1251'), '<meta charset="windows-1251">é', 'a UTF-8 BOM wins over both');
  t.equal(decodeHtml(Buffer.from([0xe9])), 'é', 'nothing declared and not UTF-8: windows-1252');
  t.equal(decodeHtml(Buffer.from([0x93, 0x80, 0x85, 0x96, 0x99, 0x94, 0x81])), '“€…–™”\u0081', 'windows-1252 by its WHATWG table, not read as ISO-8859-1');
  t.equal(decodeHtml(Buffer.from([0x91, 0x61, 0x92]), 'iso-8859-1'), '‘a’', 'the ISO-8859-1 label means windows-1252');
  t.equal(decodeHtml(Buffer.from('<p>Über</p>', 'utf16le')), '<p>Über</p>', 'UTF-16 without a mark, by its zero bytes');
  t.equal(decodeHtml(Buffer.from('<title>Story – Site</title>café', 'utf8')), '<title>Story – Site</title>café', 'nothing declared, valid UTF-8: UTF-8');
  t.equal(decodeHtml(Buffer.from('<meta charset="windows-1252">café', 'utf8')), '<meta charset="windows-1252">cafÃ©', 'a declared charset wins even over valid UTF-8');
});

t.test('links are resolved after extraction: a contents list of # links and a figure caption survive', async (t) => {
  const sections = ['Early life', 'The lighthouse years', 'The storm', 'Later work', 'Legacy'];
  const html = `<html><head><title>The Keeper</title></head><body><div id="content"><h1>The Keeper</h1>
${storyParagraphs(['the', 'keeper', 'trimmed', 'the', 'wick', 'at', 'dusk'], 2)}
<h2>Contents</h2><ul class="table-of-contents">${sections.map((name, n) => `<li><a href="#s${n}"><span>${n + 1}</span> <span>${name}</span></a></li>`).join('')}</ul>
${sections.map((name, n) => `<h2 id="s${n}">${name}</h2>${storyParagraphs(['waves', 'broke', 'on', 'the', 'rocks', 'below', 'him'], 2)}`).join('\n')}
<div class="thumb"><figure><img src="storm.png" alt=""><figcaption>Figure 2: <a href="#s2">the storm front</a></figcaption></figure></div>
<p>See <a href="Harbour">the harbour</a>, <a href="/about">about</a>, <a href="https://elsewhere.example/x">elsewhere</a> and <a href="javascript:void(0)">nothing</a>.</p>
</div></body></html>`;
  const story = extractStory(html, 'https://wiki.example/wiki/The_Keeper', 5);
  const content = story?.contentHtml ?? '';
  t.match(content, /Contents/);
  for (const [n, name] of sections.entries()) t.match(content, `<a href="#s${n}"><span>${n + 1}</span> <span>${name}</span></a>`, `the contents list keeps "${name}" as an in-page link`);
  t.match(content, /Figure 2: <a href="#s2">the storm front<\/a>/, 'the caption stays');
  t.same(story?.imageSources, [['https://wiki.example/wiki/storm.png']]);
  t.match(content, '<a href="https://wiki.example/wiki/Harbour">the harbour</a>', 'other links are made absolute');
  t.match(content, '<a href="https://wiki.example/about">about</a>');
  t.match(content, '<a href="https://elsewhere.example/x">elsewhere</a>');
  t.match(content, ' and nothing.', 'a javascript: link keeps its text only');
  t.notMatch(content, /javascript:/);
});

t.test('<base href> is what relative links and images mean, # links included, as in a browser', async (t) => {
  const html = `<html><head><title>T</title><base href="/archive/2019/"></head><body><article>${TEXT}
<p><img src="pic.png" alt=""> <a href="next">Next</a> <a href="#top">Top</a></p></article></body></html>`;
  const story = extractStory(html, 'https://blog.example/post?id=7', 5);
  t.same(story?.imageSources, [['https://blog.example/archive/2019/pic.png']]);
  t.match(story?.contentHtml, '<a href="https://blog.example/archive/2019/next">Next</a>');
  t.match(story?.contentHtml, '<a href="https://blog.example/archive/2019/#top">Top</a>', 'the base names another page, so # leads there');
  const same = extractStory(html.replace('/archive/2019/', '/post?id=7'), 'https://blog.example/post?id=7', 5);
  t.match(same?.contentHtml, '<a href="#top">Top</a>', 'a base naming the page itself keeps # links in the page');
});

t.test('srcset: URLs with commas survive, descriptors are read, the widest width within the limit ranks first', async (t) => {
  t.same(parseSrcset('/w_400,h_300/a.jpg 400w, b.jpg 1200w,c.jpg'), [{ url: '/w_400,h_300/a.jpg', width: 400 }, { url: 'b.jpg', width: 1200 }, { url: 'c.jpg' }]);
  t.same(parseSrcset('a.png 1x, b.png 2.5x, bad.png 2q, d.png,'), [{ url: 'a.png', density: 1 }, { url: 'b.png', density: 2.5 }, { url: 'd.png' }]);
  t.same(parseSrcset(''), []);
  const ranked = rankCandidates([{ url: '800', width: 800 }, { url: '4000', width: 4000 }, { url: '1x' }, { url: '2048', width: 2048 }, { url: '3000', width: 3000 }, { url: '2x', density: 2 }, { url: '4x', density: 4 }]);
  t.same(ranked.map((candidate) => candidate.url), ['2048', '800', '3000', '4000', '2x', '1x', '4x']);
});

t.test('pictures given only by srcset, data-srcset, data-src or <picture><source> are kept, best candidate first', async (t) => {
  const pictures = [
    '<p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==" data-srcset="a-400.jpg 400w, a-1200.jpg 1200w" class="lazyload" alt="a"></p>',
    '<p><img srcset="b-1x.png 1x, b-2x.png 2x" alt="b"></p>',
    '<p><picture><source type="image/avif" srcset="c.avif 2000w"><source srcset="c-800.webp 800w, c-1600.webp 1600w"><img src="c-small.jpg" alt="c"></picture></p>',
    '<p><img src="/placeholder.gif" data-src="d?id=4" class="lazy" alt="d"></p>',
    '<p><img data-src="e-full" data-srcset="e-300 300w, e-900 900w" alt="e"></p>',
    '<figure><picture><source data-srcset="f-500.jpg 500w, f-1000.jpg 1000w"><img alt="f"></picture><figcaption>F</figcaption></figure>',
  ].join('\n');
  const story = extractStory(`<html><body><article>${TEXT}${pictures}</article></body></html>`, 'https://pics.example/s/1', 10);
  const at = (path: string) => `https://pics.example${path}`;
  t.same(story?.imageSources, [
    [at('/s/a-1200.jpg'), at('/s/a-400.jpg')],
    [at('/s/b-2x.png'), at('/s/b-1x.png')],
    [at('/s/c-1600.webp'), at('/s/c-800.webp'), at('/s/c-small.jpg')],
    [at('/s/d?id=4'), at('/placeholder.gif')],
    [at('/s/e-900'), at('/s/e-300'), at('/s/e-full')],
    [at('/s/f-1000.jpg'), at('/s/f-500.jpg')],
  ]);
  const content = story?.contentHtml ?? '';
  t.equal([...content.matchAll(/<img /g)].length, 6, 'one <img> per picture');
  t.notMatch(content, /srcset|data-src|<source/);
});

t.test('metadata precedence where the sources disagree: JSON-LD, then Dublin Core, then Open Graph and <meta name=author>', async (t) => {
  const page = (head: string) => `<html><head>${head}</head><body><article>${TEXT}</article></body></html>`;
  const dublinCore = extractStory(
    page(`<title>Title element</title>
<meta name="title" content="Meta name title"><meta property="og:title" content="Open Graph title"><meta name="twitter:title" content="Twitter title">
<meta name="DC.title" content="Dublin Core title"><meta name="author" content="FAIL"><meta name="DC.creator" content="Dublin Core creator">
<meta property="og:description" content="Open Graph description"><meta name="description" content="Meta description">`),
    'https://x.example/a',
    5,
  );
  t.equal(dublinCore?.title, 'Dublin Core title', 'Dublin Core beats Open Graph, <meta name=title> and Twitter');
  t.equal(dublinCore?.authorName, 'Dublin Core creator', 'Dublin Core beats <meta name=author>');
  t.equal(dublinCore?.summary, 'Open Graph description');

  const jsonLd = extractStory(
    page(`<title>Title element</title><meta property="og:title" content="FAIL"><meta name="dc.title" content="FAIL">
<meta name="author" content="FAIL"><meta name="dc.creator" content="FAIL"><meta property="article:author" content="FAIL">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","name":"The JSON-LD title","author":{"@type":"Person","name":"Ada Quill"},"description":"The JSON-LD description"}</script>`),
    'https://x.example/b',
    5,
  );
  t.equal(jsonLd?.title, 'The JSON-LD title', 'JSON-LD beats every meta tag');
  t.equal(jsonLd?.authorName, 'Ada Quill');
  t.equal(jsonLd?.summary, 'The JSON-LD description');

  const listPage = extractStory(
    page(`<title>List of lighthouses in Wales - Wikipedia</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","name":"List of lighthouses in Wales","headline":"Wikimedia list article","publisher":{"@type":"Organization","name":"Wikimedia Foundation, Inc."}}</script>`),
    'https://en.wiki.example/wiki/List_of_lighthouses_in_Wales',
    5,
  );
  t.equal(listPage?.title, 'List of lighthouses in Wales', "JSON-LD's headline is a description here: the name that matches the page's <title> wins");

  const headline = extractStory(
    page(`<title>The Storm Front Over Harbour Town</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","name":"Harbour Town Blog","headline":"The Storm Front Over Harbour Town"}</script>`),
    'https://x.example/c',
    5,
  );
  t.equal(headline?.title, 'The Storm Front Over Harbour Town', 'the headline wins when it alone matches the <title>');

  const byline = extractStory(
    `<html><head><title>Quiet Water</title></head><body><article><h1>Quiet Water</h1><p class="byline">By Mira Holt</p>${TEXT}</article></body></html>`,
    'https://x.example/d',
    5,
  );
  t.equal(byline?.authorName, 'Mira Holt', 'with no metadata, a byline in the page');
});
