/**
 * Story responses are rendered as JSON by SQLite (src/stories/present.ts) and sent as bytes, so
 * no response schema serializes them: these tests hold that SQL to the `StoryDto` contract
 * instead. Every story route answers bodies that match the schema exactly (every field, nothing
 * more), strings of every kind come back as they were stored, and lists show exactly what
 * `GET /stories/{id}` shows.
 */
import t, { type Test } from 'tap';
import { StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, createTag } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';

const FIELDS = Object.keys(StoryDto.properties).sort();
const TAG_FIELDS = ['createdAt', 'id', 'kind', 'name', 'storyCount', 'updatedAt'];

/** Asserts the body is a StoryDto with exactly the schema's fields (and tags exactly TagDto's). */
function checkDto(t: Test, body: unknown, what: string): Record<string, unknown> {
  const story = body as Record<string, unknown>;
  assertMatches(t, StoryDto, story, `${what}: matches StoryDto`);
  t.strictSame(Object.keys(story).sort(), FIELDS, `${what}: every field and nothing more`);
  for (const tag of story.tags as Record<string, unknown>[]) t.strictSame(Object.keys(tag).sort(), TAG_FIELDS, `${what}: tag fields`);
  return story;
}

async function getJson(ctx: TestContext, url: string): Promise<unknown> {
  const res = await ctx.get(url);
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`);
  if (res.headers['content-type'] !== 'application/json; charset=utf-8') throw new Error(`GET ${url}: content type ${res.headers['content-type']}`);
  return res.json();
}

const AWKWARD = [
  'quotes " and \\ backslash',
  'nul \u0000 inside, line\nbreak, tab\t, return\r, form feed\f, bell\u0007, escape\u001b, delete\u007f',
  'emoji 📚🧵, CJK 我喜欢读书, RTL مكتبة, combining é (e\u0301)',
  'line and paragraph separators \u2028 \u2029, BOM \ufeff',
  '</script><script>alert(1)</script> & &amp; <b>not markup</b>',
  '{"looks": ["like", "json"]}',
];

t.test('every story route answers exactly a StoryDto, whatever the strings hold', async (t) => {
  const ctx = await buildTestApp(t);
  const early = await createTag(ctx, 'zebra');
  for (const [index, text] of AWKWARD.entries()) {
    const created = await ctx.post('/api/stories', {
      title: `T${index} ${text}`,
      summary: text,
      description: text,
      contentHtml: `<p>${text.replace(/&(?!amp;)/g, '&amp;').replace(/</g, '&lt;')}</p><p title="a &quot;quoted&quot; title">second</p>`,
      sourceUrl: `https://example.org/${index}?q="${index}"`,
      rating: 1 + (index % 5),
      volume: index,
      authorName: `Author ${text}`,
      seriesName: `Series ${text}`,
      tagNames: ['mango', `tag ${index} ${text.slice(0, 20)}`, 'apple', early.name],
    });
    t.equal(created.statusCode, 201, `create ${index}`);
    t.equal(created.headers['content-type'], 'application/json; charset=utf-8');
    const story = checkDto(t, created.json(), `create ${index}`);
    t.equal(story.title, `T${index} ${text}`.trim(), 'title as stored (trimmed)');
    t.equal(story.summary, text, 'summary as sent');
    t.equal(story.description, text, 'description as sent');
    t.equal(story.authorName, `Author ${text}`.trim().normalize('NFC'), 'author name as stored (trimmed, NFC)');
    t.equal(story.seriesName, `Series ${text}`.trim().normalize('NFC'), 'series name as stored (trimmed, NFC)');
    t.match(story.contentPlain, /second$/, 'contentPlain');
    t.match(story.contentHtml, /<p title="a &quot;quoted&quot; title">second<\/p>$/, 'contentHtml with its attribute quotes');
    const names = (story.tags as { name: string }[]).map((tag) => tag.name);
    t.strictSame(names, [...names].sort(), 'tags sorted by name');
    t.equal(names.length, 4);
    t.strictSame(await getJson(ctx, `/api/stories/${story.id}`), story, 'GET shows what create returned');
  }

  const bare = checkDto(t, (await ctx.post('/api/stories', { title: 'Bare' })).json(), 'bare');
  t.strictSame(
    { ...bare, id: null, createdAt: null, updatedAt: null },
    {
      id: null,
      title: 'Bare',
      summary: null,
      description: null,
      contentHtml: null,
      contentPlain: null,
      sourceUrl: null,
      coverPath: null,
      wordCount: 0,
      rating: null,
      volume: null,
      authorId: null,
      authorName: null,
      seriesId: null,
      seriesName: null,
      tags: [],
      createdAt: null,
      updatedAt: null,
      chapterCount: 1,
      status: null,
      publishedAt: null,
      sourceUpdatedAt: null,
      language: null,
      authors: [],
      chaptersAddedAt: null,
      readingStatus: null,
      finishedAt: null,
      readCount: 0,
      favourite: false,
    },
    'unset fields are null and no tags is []',
  );
  checkDto(t, (await ctx.put(`/api/stories/${bare.id}`, { summary: 'now with a summary' })).json(), 'update');
  checkDto(t, (await ctx.post(`/api/stories/${bare.id}/rating`, { rating: 5 })).json(), 'rating');
  const tagged = checkDto(t, (await ctx.post(`/api/stories/${bare.id}/tags/${early.id}`)).json(), 'add tag');
  t.strictSame(
    (tagged.tags as Record<string, unknown>[])[0],
    { id: early.id, name: 'zebra', storyCount: AWKWARD.length + 1, createdAt: (tagged.tags as { createdAt: string }[])[0]!.createdAt, updatedAt: (tagged.tags as { updatedAt: string }[])[0]!.updatedAt, kind: null },
    'a tag shows its live story count',
  );
  checkDto(t, (await ctx.del(`/api/stories/${bare.id}/tags/${early.id}`)).json(), 'remove tag');
});

t.test('lists show exactly what GET /stories/{id} shows, in the list envelope (docs/api.md, "Lists and paging")', async (t) => {
  const ctx = await buildTestApp(t);
  const author = (await createStory(ctx, { authorName: 'Lister', seriesName: 'Saga', volume: 1, rating: 4, tagNames: ['b', 'a'] })) as unknown as { authorId: string; seriesId: string };
  for (let i = 0; i < 4; i += 1) await createStory(ctx, { authorName: 'Lister', seriesName: 'Saga', volume: i + 2, rating: 5, contentHtml: `<p>body "${i}"</p>`, tagNames: ['a'] });

  const page = (await getJson(ctx, '/api/stories?page=0&size=3')) as { content: unknown[]; [key: string]: unknown };
  t.strictSame(Object.keys(page), ['content', 'pageable', 'totalElements', 'totalPages', 'last', 'first', 'numberOfElements', 'size', 'number', 'sort', 'empty'], 'envelope keys in order');
  t.equal(page.totalElements, 5);
  t.equal(page.numberOfElements, 3);
  t.equal(page.content.length, 3);
  const empty = (await getJson(ctx, '/api/stories?page=9&size=3')) as { content: unknown[]; empty: boolean };
  t.strictSame(empty.content, []);
  t.equal(empty.empty, true);

  const lists = [
    '/api/stories?page=0&size=20',
    '/api/stories?page=1&size=2&sortBy=title&sortDir=asc',
    `/api/stories/author/${author.authorId}`,
    '/api/stories/tags/a',
  ];
  for (const url of lists) {
    for (const item of ((await getJson(ctx, url)) as { content: { id: string }[] }).content) {
      checkDto(t, item, url);
      t.strictSame(item, await getJson(ctx, `/api/stories/${item.id}`), `${url}: as GET by id`);
    }
  }
  for (const url of [`/api/stories/series/${author.seriesId}`, '/api/stories/recent?limit=3', '/api/stories/top-rated?limit=3']) {
    const items = (await getJson(ctx, url)) as { id: string }[];
    t.ok(items.length > 0, `${url}: not empty`);
    for (const item of items) {
      checkDto(t, item, url);
      t.strictSame(item, await getJson(ctx, `/api/stories/${item.id}`), `${url}: as GET by id`);
    }
  }
});
