import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, createTag, MISSING_ID } from '../helpers/factories.js';
import { StoryDto } from '../../src/schemas/story.js';
import { findAuthorById } from '../../src/authors/repository.js';
import { findSeriesById } from '../../src/series/repository.js';
import { assertMatches } from '../helpers/schema.js';
import { deriveStoryText } from '../../src/html/story-text.js';
import { bodiesDerivedOnThread, OFF_THREAD_MIN_CHARS } from '../../src/html/text-thread.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Story = Record<string, unknown> & { id: string; tags: Array<{ id: string; name: string; storyCount: number }> };

async function getStory(ctx: TestContext, id: string): Promise<Story> {
  const res = await ctx.get(`/api/stories/${id}`);
  if (res.statusCode !== 200) throw new Error(`GET story failed: ${res.statusCode} ${res.body}`);
  return res.json() as Story;
}

async function tagCount(ctx: TestContext, tagId: string): Promise<number> {
  return (await ctx.get(`/api/tags/${tagId}`)).json().storyCount as number;
}

t.test('create returns 201 with every StoryDto field, and GET returns the same story', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.post('/api/stories', {
    title: '  The Long Night  ',
    summary: 'A summary <b>kept as given</b>',
    description: 'A description',
    contentHtml: '<p>One two three.</p>',
    sourceUrl: 'https://example.com/story',
    volume: 0,
    rating: 4,
    authorName: 'Ann Lee',
    seriesName: 'Night Cycle',
    tagNames: ['Zeta', 'alpha', 'Mid'],
  });
  t.equal(res.statusCode, 201);
  const story = res.json() as Story;
  assertMatches(t, StoryDto, story, 'matches StoryDto');
  t.same(Object.keys(story).sort(), Object.keys(StoryDto.properties).sort(), 'exactly the fields of the Story DTO (docs/api.md)');
  t.match(story.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a lowercase UUID v4');
  t.equal(story.title, 'The Long Night', 'title trimmed');
  t.equal(story.summary, 'A summary <b>kept as given</b>', 'summary stored as given');
  t.equal(story.description, 'A description');
  t.equal(story.contentHtml, '<p>One two three.</p>');
  t.equal(story.contentPlain, 'One two three.');
  t.equal(story.wordCount, 3);
  t.equal(story.sourceUrl, 'https://example.com/story');
  t.equal(story.coverPath, null);
  t.equal(story.volume, 0, 'volume 0 is allowed');
  t.equal(story.rating, 4);
  t.equal(story.authorName, 'Ann Lee');
  t.type(story.authorId, 'string');
  t.equal(story.seriesName, 'Night Cycle');
  t.type(story.seriesId, 'string');
  t.same(
    story.tags.map((tag) => tag.name),
    ['alpha', 'mid', 'zeta'],
    'tags lowercased and sorted by name',
  );
  t.ok(story.tags.every((tag) => tag.storyCount === 1), 'tag counts include this story');
  t.match(story.createdAt, ISO_MS);
  t.equal(story.updatedAt, story.createdAt);

  t.same(await getStory(ctx, story.id), story, 'GET shows what create returned');
});

t.test('a minimal story has nulls, no tags and 0 words', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.post('/api/stories', { title: 'Bare' });
  t.equal(res.statusCode, 201);
  const story = res.json() as Story;
  assertMatches(t, StoryDto, story);
  for (const field of ['summary', 'description', 'contentHtml', 'contentPlain', 'sourceUrl', 'coverPath', 'rating', 'volume', 'authorId', 'authorName', 'seriesId', 'seriesName']) {
    t.equal(story[field], null, `${field} is null`);
  }
  t.same(story.tags, []);
  t.equal(story.wordCount, 0);

  const nulls = await ctx.post('/api/stories', { title: 'Nulls', summary: null, authorId: null, authorName: null, tagNames: null, rating: null });
  t.equal(nulls.statusCode, 201, 'null means unset on create');
  t.equal(nulls.json().authorId, null);
  t.same(nulls.json().tags, []);
});

t.test('GET and DELETE of unknown or malformed ids', async (t) => {
  const ctx = await buildTestApp(t);
  const missing = await ctx.get(`/api/stories/${MISSING_ID}`);
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().error, `Story not found with id: ${MISSING_ID}`);

  const malformed = await ctx.get('/api/stories/not-a-uuid');
  t.equal(malformed.statusCode, 400);
  t.ok(malformed.json().details.id, 'details name the path parameter');

  t.equal((await ctx.del(`/api/stories/${MISSING_ID}`)).statusCode, 404);
  t.equal((await ctx.del('/api/stories/123')).statusCode, 400);
  t.equal((await ctx.put(`/api/stories/${MISSING_ID}`, { title: 'x' })).statusCode, 404);
  t.match((await ctx.put(`/api/stories/${MISSING_ID}`, { title: 'x' })).json().error, MISSING_ID);
});

t.test('delete removes the story and its tag links; counts follow', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { tagNames: ['gone'], authorName: 'Del Author', seriesName: 'Del Series' });
  const keep = await createStory(ctx, { tagNames: ['gone'] });
  const tagId = (story.tags as Story['tags'])[0]!.id;
  t.equal(await tagCount(ctx, tagId), 2);
  t.equal(findAuthorById(ctx.app.db, story.authorId as string)?.storyCount, 1);

  const res = await ctx.del(`/api/stories/${story.id}`);
  t.equal(res.statusCode, 200);
  t.type(res.json().message, 'string');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).statusCode, 404);
  t.equal((await ctx.del(`/api/stories/${story.id}`)).statusCode, 404, 'a second delete is 404');

  t.equal(await tagCount(ctx, tagId), 1, 'the tag link went with the story; the tag stays');
  t.equal(findAuthorById(ctx.app.db, story.authorId as string)?.storyCount, 0, 'the author stays, with no stories');
  t.equal(findSeriesById(ctx.app.db, story.seriesId as string)?.storyCount, 0);
  t.equal((await ctx.get(`/api/stories/${keep.id}`)).statusCode, 200, 'other stories are untouched');
});

t.test('update is partial and changes updatedAt every time', async (t) => {
  const ctx = await buildTestApp(t);
  const original = await createStory(ctx, {
    title: 'Original',
    summary: 'S',
    description: 'D',
    contentHtml: '<p>a b</p>',
    sourceUrl: 'https://x.test',
    volume: 3,
    rating: 2,
    authorName: 'Keep Author',
    seriesName: 'Keep Series',
    tagNames: ['keep'],
  });

  const res = await ctx.put(`/api/stories/${original.id}`, { summary: 'New summary' });
  t.equal(res.statusCode, 200);
  const updated = res.json() as Story;
  assertMatches(t, StoryDto, updated);
  t.equal(updated.summary, 'New summary');
  for (const field of ['title', 'description', 'contentHtml', 'contentPlain', 'wordCount', 'sourceUrl', 'volume', 'rating', 'authorId', 'authorName', 'seriesId', 'seriesName', 'createdAt']) {
    t.same(updated[field], original[field], `${field} untouched`);
  }
  t.same(updated.tags.map((tag) => tag.name), ['keep'], 'tags untouched when tagNames is absent');
  t.ok((updated.updatedAt as string) > (original.updatedAt as string), 'updatedAt moved forward');

  const empty = (await ctx.put(`/api/stories/${original.id}`, {})).json() as Story;
  t.ok((empty.updatedAt as string) > (updated.updatedAt as string), 'even an empty update is an update');
  t.equal(empty.summary, 'New summary');

  const renamed = (await ctx.put(`/api/stories/${original.id}`, { title: '  Renamed ' })).json() as Story;
  t.equal(renamed.title, 'Renamed');

  const whole = await getStory(ctx, original.id);
  const roundTrip = await ctx.put(`/api/stories/${original.id}`, { ...whole, authorName: undefined, seriesName: undefined, title: 'Round trip' });
  t.equal(roundTrip.statusCode, 200, 'a DTO sent back (minus one of each link form) is accepted; unknown fields ignored');
  t.equal(roundTrip.json().authorId, original.authorId);
});

t.test('null clears every nullable field; link ids null unlink', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, {
    summary: 'S',
    description: 'D',
    contentHtml: '<p>words here</p>',
    sourceUrl: 'https://x.test',
    volume: 1,
    rating: 5,
    authorName: 'Clear Author',
    seriesName: 'Clear Series',
    tagNames: ['one', 'two'],
  });
  const res = await ctx.put(`/api/stories/${story.id}`, {
    summary: null,
    description: null,
    contentHtml: null,
    sourceUrl: null,
    volume: null,
    rating: null,
    authorId: null,
    seriesId: null,
    tagNames: [],
  });
  t.equal(res.statusCode, 200);
  const cleared = res.json() as Story;
  for (const field of ['summary', 'description', 'contentHtml', 'contentPlain', 'sourceUrl', 'volume', 'rating', 'authorId', 'authorName', 'seriesId', 'seriesName']) {
    t.equal(cleared[field], null, `${field} cleared`);
  }
  t.equal(cleared.wordCount, 0);
  t.same(cleared.tags, []);
  t.equal(findAuthorById(ctx.app.db, story.authorId as string)?.storyCount, 0, 'the author itself remains');

  const relinked = (await ctx.put(`/api/stories/${story.id}`, { authorName: 'clear author', tagNames: ['one'] })).json() as Story;
  t.equal(relinked.authorId, story.authorId, 'authorName on update finds the existing author');
  const unlinked = (await ctx.put(`/api/stories/${story.id}`, { authorName: null, tagNames: null })).json() as Story;
  t.equal(unlinked.authorId, null, 'authorName: null also unlinks');
  t.same(unlinked.tags, [], 'tagNames: null clears the tags');

  const bothNull = await ctx.put(`/api/stories/${story.id}`, { seriesId: null, seriesName: null });
  t.equal(bothNull.statusCode, 200, 'both series forms null agree: no series');
});

t.test('tagNames on update replaces the whole set', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { tagNames: ['a', 'b', 'c'] });
  const tagIds = Object.fromEntries((story.tags as Story['tags']).map((tag) => [tag.name, tag.id]));
  const res = await ctx.put(`/api/stories/${story.id}`, { tagNames: ['C', 'd', 'b', 'd'] });
  t.equal(res.statusCode, 200);
  const updated = res.json() as Story;
  t.same(updated.tags.map((tag) => tag.name), ['b', 'c', 'd']);
  t.equal(updated.tags.find((tag) => tag.name === 'c')?.id, tagIds.c, 'kept tags are the same rows');
  t.equal(await tagCount(ctx, tagIds.a as string), 0, 'the dropped tag is unlinked (and kept)');
  t.equal(await tagCount(ctx, tagIds.b as string), 1);
});

t.test('rating endpoint', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const res = await ctx.post(`/api/stories/${story.id}/rating`, { rating: 5 });
  t.equal(res.statusCode, 200);
  assertMatches(t, StoryDto, res.json());
  t.equal(res.json().rating, 5);
  t.ok(res.json().updatedAt > (story.updatedAt as string));
  t.equal((await ctx.post(`/api/stories/${story.id}/rating`, { rating: 1 })).json().rating, 1, 'a rating can be changed');

  for (const rating of [0, 6, 2.5, '5', null, -1]) {
    const bad = await ctx.post(`/api/stories/${story.id}/rating`, { rating });
    t.equal(bad.statusCode, 400, `rating ${JSON.stringify(rating)} is 400`);
    t.ok(bad.json().details.rating, 'details.rating');
  }
  const missing = await ctx.post(`/api/stories/${story.id}/rating`, {});
  t.equal(missing.statusCode, 400);
  t.equal(missing.json().details.rating, 'is required');
  t.equal((await ctx.post(`/api/stories/${story.id}/rating`)).statusCode, 400, 'no body at all');
  t.equal((await getStory(ctx, story.id)).rating, 1, 'failed attempts changed nothing');

  const unknown = await ctx.post(`/api/stories/${MISSING_ID}/rating`, { rating: 3 });
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json().error, MISSING_ID);
});

t.test('adding and removing one tag', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { tagNames: ['existing'] });
  const tag = await createTag(ctx, 'Added');

  const added = await ctx.post(`/api/stories/${story.id}/tags/${tag.id}`);
  t.equal(added.statusCode, 200);
  assertMatches(t, StoryDto, added.json());
  t.same(added.json().tags.map((x: { name: string }) => x.name), ['added', 'existing']);
  t.ok(added.json().updatedAt > (story.updatedAt as string), 'a real change bumps updatedAt');
  t.equal(await tagCount(ctx, tag.id), 1);

  const again = await ctx.request({ method: 'POST', url: `/api/stories/${story.id}/tags/${tag.id}`, headers: { 'content-type': 'application/json' } });
  t.equal(again.statusCode, 200, 'adding a linked tag is a no-op (and an empty JSON body is fine)');
  t.same(again.json(), added.json(), 'nothing changed, not even updatedAt');
  t.equal(await tagCount(ctx, tag.id), 1);

  const removed = await ctx.del(`/api/stories/${story.id}/tags/${tag.id}`);
  t.equal(removed.statusCode, 200);
  t.same(removed.json().tags.map((x: { name: string }) => x.name), ['existing']);
  t.equal(await tagCount(ctx, tag.id), 0);
  t.equal((await ctx.get(`/api/tags/${tag.id}`)).statusCode, 200, 'the tag itself stays');

  const removedAgain = await ctx.del(`/api/stories/${story.id}/tags/${tag.id}`);
  t.equal(removedAgain.statusCode, 200, 'removing an unlinked tag is a no-op');
  t.same(removedAgain.json(), removed.json());

  const unknownTag = await ctx.post(`/api/stories/${story.id}/tags/${MISSING_ID}`);
  t.equal(unknownTag.statusCode, 404);
  t.match(unknownTag.json().error, /Tag not found/);
  t.equal((await ctx.del(`/api/stories/${story.id}/tags/${MISSING_ID}`)).statusCode, 404);
  const unknownStory = await ctx.post(`/api/stories/${MISSING_ID}/tags/${tag.id}`);
  t.equal(unknownStory.statusCode, 404);
  t.match(unknownStory.json().error, `Story not found with id: ${MISSING_ID}`);
  t.equal((await ctx.del(`/api/stories/${MISSING_ID}/tags/${tag.id}`)).statusCode, 404);

  const badTagId = await ctx.post(`/api/stories/${story.id}/tags/nope`);
  t.equal(badTagId.statusCode, 400);
  t.ok(badTagId.json().details.tagId, 'details.tagId');
  const badId = await ctx.del(`/api/stories/nope/tags/${tag.id}`);
  t.equal(badId.statusCode, 400);
  t.ok(badId.json().details.id);
});

t.test('concurrent creates commit together, each on its own; a long body derived on the text thread is stored as the event loop would store it', async (t) => {
  const ctx = await buildTestApp(t);
  // Long enough for the text thread (src/html/text-thread.ts), with what sanitizing and the plain text must handle.
  const long = `<p>${'Word&nbsp;<em>emphasis</em> and <script>bad()</script>more. '.repeat(120)}</p><table><tr><td>Tide</td><td>High</td></tr></table>`;
  t.ok(long.length >= OFF_THREAD_MIN_CHARS, 'the body goes to the thread');
  const expected = deriveStoryText(long);
  const bodies: Array<Record<string, unknown>> = Array.from({ length: 8 }, (_, index) => ({
    title: `Grouped ${index}`,
    contentHtml: long,
    authorName: 'Shared New Author',
    tagNames: ['grouped'],
  }));
  bodies.splice(3, 0, { title: 'Missing cover', contentHtml: long, coverPath: 'covers/none.webp' });
  const derivedBefore = bodiesDerivedOnThread();
  const responses = await Promise.all(bodies.map((body) => ctx.post('/api/stories', body)));
  t.same(
    responses.map((res) => res.statusCode),
    [201, 201, 201, 400, 201, 201, 201, 201, 201],
    'the refused create is refused alone',
  );
  t.equal(bodiesDerivedOnThread() - derivedBefore, bodies.length, 'the text thread derived every body');
  const created = responses.filter((res) => res.statusCode === 201).map((res) => res.json() as Story);
  for (const story of created) {
    t.equal(story.contentHtml, expected.contentHtml);
    t.equal(story.contentPlain, expected.contentPlain);
    t.equal(story.wordCount, expected.wordCount);
  }
  t.equal(new Set(created.map((story) => story.authorId)).size, 1, 'the new author was created once and found by the others');
  t.equal((await ctx.get(`/api/authors/${created[0]!.authorId as string}`)).json().storyCount, 8);
  const search = (await ctx.get('/api/stories/search?query=emphasis&page=0&size=20')).json() as { totalHits: number };
  t.equal(search.totalHits, 8, 'the search index holds every created story');
});

t.test('a refused create or update costs no derivation: the body is checked before its text is sanitized', async (t) => {
  const ctx = await buildTestApp(t);
  const long = `<p>${'A sentence long enough to be worth the text thread. '.repeat(100)}</p>`;
  t.ok(long.length >= OFF_THREAD_MIN_CHARS, 'the body would go to the thread');
  const story = (await ctx.post('/api/stories', { title: 'Kept', contentHtml: '<p>short</p>' })).json() as Story;
  const derivedBefore = bodiesDerivedOnThread();
  const refusedCreate = await ctx.post('/api/stories', { title: '   ', contentHtml: long });
  t.equal(refusedCreate.statusCode, 400);
  t.same(refusedCreate.json().details, { title: 'must not be blank' });
  const refusedUpdate = await ctx.put(`/api/stories/${story.id}`, { authorId: 'no-such-author', contentHtml: long });
  t.equal(refusedUpdate.statusCode, 400);
  t.ok(refusedUpdate.json().details.authorId, 'the unknown author is named');
  t.equal(bodiesDerivedOnThread(), derivedBefore, 'neither body was derived');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().contentPlain, 'short', 'the story is as it was');
});
