/**
 * Every OPDS feed kind is well-formed XML (xmllint) and valid Atom (jing with the RELAX NG grammar
 * of test/fixtures/atom.rnc), also when titles, names, tags and summaries hold markup, entities,
 * quotes and characters XML 1.0 forbids (docs/decisions.md, "OPDS catalog": those are dropped,
 * the rest escaped). One xmllint and one jing run check all the documents.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';
import { checkDocuments, parseFeed } from '../helpers/opds.js';
import { makeDeviceToken } from '../helpers/tokens.js';

/** Markup, entities, both quotes, a CDATA end, and the control characters XML 1.0 has no place for. */
const HOSTILE = `<b>Bold</b> & "double" 'single' &amp; ]]> \u0001\u0008\u000b\u000c\u001f\ufffe\uffff end`;
/** What a reader sees: the same text with the forbidden characters gone. */
const SHOWN = `<b>Bold</b> & "double" 'single' &amp; ]]>  end`;

t.test('every feed kind is well-formed, valid Atom, and shows hostile text as text', async (t) => {
  const ctx = await buildTestApp(t);
  const body = fileUpload(img.png());
  const upload = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: body.payload, headers: body.headers });
  const coverPath = (upload.json() as { path: string }).path;
  const story = await createStory(ctx, {
    title: `Title ${HOSTILE}`,
    summary: `Summary ${HOSTILE}\ttab\nline`,
    authorNames: [`Author ${HOSTILE}`, 'Co Writer'],
    seriesName: `Series ${HOSTILE}`,
    status: 'in-progress',
    language: 'pt-BR',
    volume: 1,
    tagNames: [`tag ${HOSTILE}`],
    rating: 4,
    coverPath,
  });
  t.ok(story.title.includes('\u0001'), 'the library keeps the characters as given; only the feeds drop them');
  await createStory(ctx, { title: 'Plain neighbour' });
  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.3, position: null })).statusCode, 200);
  // The hostile story in the reader's lists too: reading (opened above) and a favourite.
  t.equal((await ctx.put(`/api/stories/${story.id}/favourite`, { favourite: true })).statusCode, 200);
  const tagId = ((await ctx.get('/api/tags')).json() as { content: { id: string; name: string }[] }).content.find((tag) => tag.name.startsWith('tag '))!.id;
  // The tag as a fandom too, for the "By fandom" feed (kinds come from importers only).
  ctx.app.db.$client.prepare("UPDATE tags SET kind = 'fandom' WHERE id = ?").run(tagId);
  const secret = await makeDeviceToken(ctx, ['read']);

  const paths = [
    '',
    '/stories',
    '/stories?sort=rating&page=0',
    '/stories?page=3',
    '/top-rated',
    '/continue',
    '/want-to-read',
    '/reading',
    '/favourites',
    '/search?q=Bold',
    '/search?q=%3C%26%22',
    '/authors',
    `/authors/${story.authorId as string}`,
    '/series',
    `/series/${story.seriesId as string}`,
    '/tags',
    `/tags/${tagId}`,
    '/fandoms',
  ];
  const documents: { name: string; xml: string; atom: boolean }[] = [];
  for (const [form, base] of [
    ['header', '/opds'],
    ['path', `/opds/k/${secret}`],
  ] as const) {
    for (const path of [...paths, '/search.xml']) {
      const res = await ctx.get(`${base}${path}`);
      t.equal(res.statusCode, 200, `${form} form ${path}`);
      documents.push({ name: `${form}${path}`, xml: res.body, atom: path !== '/search.xml' });
    }
  }
  await checkDocuments(t, documents);

  const all = parseFeed(documents.find((document) => document.name === 'header/stories')!.xml);
  const entry = all.entries.find((candidate) => candidate.id === `urn:uuid:${story.id}`)!;
  t.equal(entry.title, `Title ${SHOWN}`, 'the title reads back as written, less the forbidden characters');
  t.same(entry.authors.map((author) => author.name), [`Author ${SHOWN}`, 'Co Writer']);
  t.equal(entry.language, 'pt-BR');
  t.same(
    entry.categories.map((category) => [category.term, category.label]),
    [[`tag ${SHOWN}`.toLowerCase(), `tag ${SHOWN}`.toLowerCase()]],
  );
  t.equal(entry.content, `1 chapter · In progress\n\nSeries: Series ${SHOWN}, volume 1\n\nSummary ${SHOWN}\ttab\nline`);
  const raw = documents.find((document) => document.name === 'header/stories')!.xml;
  t.notOk(raw.includes('<b>'), 'no markup from the data reaches the document');
  t.notOk(/[\u0001-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(raw), 'no forbidden character reaches the document');

  const series = parseFeed(documents.find((document) => document.name === 'header/series')!.xml);
  t.equal(series.entries[0]?.title, `Series ${SHOWN}`);
});
