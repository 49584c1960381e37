import t from 'tap';
import { parseEpub } from '../../src/import/epub.js';
import { parseHtmlFile, parseMarkdownFile, parseTextFile } from '../../src/import/text-formats.js';
import { acceptedSourceUrl, storyInputOf } from '../../src/import/story-input.js';
import { deriveStoryText } from '../../src/html/story-text.js';
import { zipOf } from '../helpers/import.js';

const CONTAINER = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`;

function epub3(metadata: string, chapters: Record<string, string>) {
  const ids = Object.keys(chapters);
  const opf = `<?xml version="1.0" encoding="UTF-8"?>
<package version="3.0" xmlns="http://www.idpf.org/2007/opf" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">${metadata}</metadata>
  <manifest>${ids.map((id) => `<item id="${id}" href="text/${encodeURIComponent(id)}.xhtml" media-type="application/xhtml+xml"/>`).join('')}</manifest>
  <spine>${ids.map((id) => `<itemref idref="${id}"/>`).join('')}</spine>
</package>`;
  return zipOf([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    { name: 'META-INF/container.xml', data: CONTAINER },
    { name: 'OEBPS/package.opf', data: opf },
    ...ids.map((id) => ({ name: `OEBPS/text/${id}.xhtml`, data: chapters[id] as string })),
  ]);
}

const xhtml = (title: string, body: string) => `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head><body>${body}</body></html>`;

t.test('EPUB 3: a collection with its position is the series and volume; a URL identifier the source; headingless chapters get their title', async (t) => {
  const book = await epub3(
    `<dc:identifier id="uid">urn:uuid:1234</dc:identifier>
     <dc:identifier>URL:https://archive.example/works/42</dc:identifier>
     <dc:title>Collected</dc:title>
     <meta property="belongs-to-collection" id="c01">The Saga</meta>
     <meta refines="#c01" property="collection-type">series</meta>
     <meta refines="#c01" property="group-position">3</meta>`,
    { 'one two': xhtml('Prologue', '<p>Start.</p>'), second: xhtml('Collected', '<p>No heading, same title as the book.</p>') },
  );
  const story = await parseEpub(book);
  t.match(story, { title: 'Collected', seriesName: 'The Saga', volume: 3, sourceUrl: 'https://archive.example/works/42' });
  t.equal(story.authorNames, undefined);
  t.same(
    story.chapters,
    [
      { title: 'Prologue', html: '<p>Start.</p>' },
      { title: '', html: '<p>No heading, same title as the book.</p>' },
    ],
    'spine order, an escaped href resolved; a document title that is the book title is no chapter title',
  );
});

t.test('EPUB errors say what is missing', async (t) => {
  await t.rejects(parseEpub(await zipOf([{ name: 'mimetype', data: 'application/epub+zip' }])), /no META-INF\/container\.xml/);
  await t.rejects(parseEpub(await epub3('<dc:title>Empty</dc:title>', {})), /spine names no readable document/);
  await t.rejects(parseEpub(Buffer.from('PK not really')), /not a readable ZIP/);
});

t.test('HTML, text and Markdown parsing', async (t) => {
  t.same(parseHtmlFile('<p>No title here</p>'), { chapters: [{ title: '', html: '<p>No title here</p>' }] });
  t.equal(parseHtmlFile('<html><head><title>  Spaced\n title </title></head><body><p>x</p></body></html>').title, 'Spaced title');
  t.equal(parseTextFile('a\r\nb\r\n\r\n\r\nc').chapters[0]?.html, '<p>a<br>b</p>\n<p>c</p>', 'CRLF, several blank lines');
  t.same(parseTextFile('   \n\n  '), { chapters: [{ title: '', html: '' }] });
  const md = parseMarkdownFile('Intro before the title\n\n# The *Title* #\n\n### Small\n\n_a_ and __b__ and 2 * 3 * 4 <b>x</b>\n\n####### not a heading');
  t.equal(md.title, 'The *Title*', 'the heading text as written');
  t.equal(
    md.chapters[0]?.html,
    '<p>Intro before the title</p>\n<h1>The <em>Title</em></h1>\n<h3>Small</h3>\n<p><em>a</em> and <strong>b</strong> and 2 * 3 * 4 &lt;b&gt;x&lt;/b&gt;</p>\n<p>####### not a heading</p>',
  );
});

t.test('parsed metadata is fitted to the story rules rather than refused', async (t) => {
  const input = storyInputOf({
    title: `  ${'T'.repeat(300)}  `,
    authorNames: ['   '],
    seriesName: 'S'.repeat(300),
    tags: ['Fluff', 'fluff', '  ', 'x'.repeat(150), ...Array.from({ length: 120 }, (_, index) => `tag ${index}`)].map((name) => ({ name })),
    sourceUrl: 'javascript:alert(1)',
    volume: 2,
    chapters: [{ title: '', text: deriveStoryText('<p>x</p>') }],
  });
  t.equal(input.title.length, 255);
  t.equal(input.author, undefined, 'a blank author is no author');
  t.same(input.series, { name: 'S'.repeat(255) });
  t.equal(input.tagNames?.length, 100, 'at most 100 tags');
  t.same(input.tagNames?.slice(0, 2), ['fluff', 'x'.repeat(100)], 'lowercased, deduplicated, blank dropped, cut to 100');
  t.equal(input.sourceUrl, undefined);
  t.equal(acceptedSourceUrl('https://ok.example/a'), 'https://ok.example/a');
  t.equal(acceptedSourceUrl(`https://long.example/${'a'.repeat(2048)}`), undefined);
});

t.test('a backslash in an entry name refuses the whole book, as docs/decisions.md says ("File import"), rather than being read as a slash', async (t) => {
  const book = await epub3('<dc:title>Slashes</dc:title>', { one: xhtml('One', '<p>Text.</p>') });
  const name = Buffer.from('OEBPS/text/one.xhtml');
  let patched = 0;
  for (let at = book.indexOf(name); at !== -1; at = book.indexOf(name, at + 1), patched += 1) book.write('\\', at + 'OEBPS'.length, 'latin1');
  t.equal(patched, 2, 'the local header and the central directory both name it');
  await t.rejects(parseEpub(book), /not a readable ZIP: invalid characters in fileName: OEBPS\\text\/one\.xhtml/);
});

t.test('a pandoc metadata block: the YAML shapes of title, author and date; anything else is text', async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    ['---\ntitle: "Quoted \\"T\\" \\u00e9"\nauthor: Jane Doe # a comment\ndate: 2024-01-02\n---\nBody', { title: 'Quoted "T" é', authorNames: ['Jane Doe'], chapters: [{ title: '', html: '<p class="date">2024-01-02</p>\n<p>Body</p>' }] }],
    ["---\ntitle: >\n  Folded\n  title\nauthor: [ \"Doe, Jane\", Bob ]\n---\nBody", { title: 'Folded title', authorNames: ['Doe, Jane'], chapters: [{ title: '', html: '<p>Body</p>' }] }],
    ["---\nauthor:\n  - name: Ann\n    affiliation: X\n  - Bob\ntitle: It''s\n  continued\n---\n# H1\n\ntext", { title: "It''s continued", authorNames: ['Ann'] }],
    ["---\ntitle: 'It''s'\nauthor:\n- affiliation: X\n  name: Later\n...\nx", { title: "It's", authorNames: ['Later'], chapters: [{ title: '', html: '<p>x</p>' }] }],
    ['---\nauthor:\n  name: Mapped\n---\n# Heading title\n\nx', { title: 'Heading title', authorNames: ['Mapped'] }],
  ];
  for (const [markdown, expected] of cases) t.match(parseMarkdownFile(markdown), expected, markdown);
  t.same(parseMarkdownFile('---\n\ntitle: no\n---\ntext'), { chapters: [{ title: '', html: '<p>---</p>\n<p>title: no<br>---<br>text</p>' }] }, 'a blank line after --- (pandoc: no block)');
  t.same(parseMarkdownFile('---\ntitle: never closed\ntext'), { chapters: [{ title: '', html: '<p>---<br>title: never closed<br>text</p>' }] });
  t.same(
    parseMarkdownFile('---\nThe storm came in at dusk.\nNobody slept.\n---\n\nMorning.'),
    { chapters: [{ title: '', html: '<p>---<br>The storm came in at dusk.<br>Nobody slept.<br>---</p>\n<p>Morning.</p>' }] },
    'prose between two rules is no block: its text is kept, not dropped as metadata',
  );
  const long = `---\ntitle: long\n${'x: y\n'.repeat(1000)}---\ntext`;
  t.notOk('title' in parseMarkdownFile(long), 'a block over 1,000 lines is text');
});
