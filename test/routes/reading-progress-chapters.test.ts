/**
 * Reading progress in a story of chapters (docs/decisions.md, "Reading progress"): `chapter` saved
 * and read back beside the whole-work `progress`, optional for clients from before chapters, and
 * checked against the story's chapters (a 400 that stores nothing).
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';
import { ReadingProgressDto } from '../../src/schemas/reading-progress.js';

const progressUrl = (id: string) => `/api/stories/${id}/progress`;
const chapters = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `Part ${i + 1}`, contentHtml: `<p>Words of part ${i + 1}.</p>` }));

t.test('chapter is saved beside progress and position, and read back', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { chapters: chapters(3) });
  const put = await ctx.put(progressUrl(story.id), { progress: 0.5, position: '4', chapter: 2 });
  t.equal(put.statusCode, 200, put.body);
  const saved = put.json() as ReadingProgressDto;
  assertMatches(t, ReadingProgressDto, saved);
  t.equal(saved.chapter, 2);
  t.same((await ctx.get(progressUrl(story.id))).json(), saved, 'GET answers what PUT did');

  const old = await ctx.put(progressUrl(story.id), { progress: 0.6, position: null });
  t.equal(old.statusCode, 200, 'a client that sends no chapter is still served');
  t.equal(old.json().chapter, null, 'and its save says no chapter');
});

t.test('a chapter the story does not have is a 400 that changes nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { chapters: chapters(2) });
  const first = await ctx.put(progressUrl(story.id), { progress: 0.25, position: '1', chapter: 1 });
  t.equal(first.statusCode, 200);
  for (const [label, chapter] of [
    ['past the last chapter', 3],
    ['zero', 0],
    ['negative', -1],
    ['fractional', 1.5],
    ['text', '2'],
    ['null', null],
  ] as const) {
    const res = await ctx.put(progressUrl(story.id), { progress: 0.9, position: '9', chapter });
    t.equal(res.statusCode, 400, `${label}: 400`);
    t.same(Object.keys(res.json().details ?? {}), ['chapter'], `${label}: details name chapter`);
  }
  t.same((await ctx.get(progressUrl(story.id))).json(), first.json(), 'the saved progress is unchanged');
  const missing = await ctx.put(progressUrl(MISSING_ID), { progress: 0.5, position: null, chapter: 1 });
  t.equal(missing.statusCode, 404, 'an unknown story is 404, not 400');
});
