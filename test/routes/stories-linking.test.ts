import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory, createTag } from '../helpers/factories.js';
import { findAuthorById, findOrCreateAuthor } from '../../src/authors/repository.js';
import { findOrCreateSeries, findSeriesById } from '../../src/series/repository.js';

type Tag = { id: string; name: string; storyCount: number };

t.test('authorName finds an author case-insensitively after trimming, or creates one', async (t) => {
  const ctx = await buildTestApp(t);
  const first = await createStory(ctx, { authorName: 'Ann Lee' });
  const second = await createStory(ctx, { authorName: ' ann lee ' });
  const third = await createStory(ctx, { authorName: 'ANN LEE' });
  t.type(first.authorId, 'string');
  t.equal(second.authorId, first.authorId, 'same author for a differently cased, padded name');
  t.equal(third.authorId, first.authorId);
  t.equal(second.authorName, 'Ann Lee', 'the stored name keeps its first spelling');
  t.equal(findAuthorById(ctx.app.db, first.authorId as string)?.storyCount, 3);

  const other = await createStory(ctx, { authorName: 'Ann  Lee' });
  t.not(other.authorId, first.authorId, 'inner spacing is part of the name');

  const unicode = await createStory(ctx, { authorName: 'Émile Zola' });
  const unicodeAgain = await createStory(ctx, { authorName: 'ÉMILE ZOLA' });
  t.equal(unicodeAgain.authorId, unicode.authorId, 'non-ASCII case folds too');

  const existing = findOrCreateAuthor(ctx.app.db, 'Made Elsewhere');
  const linked = await createStory(ctx, { authorName: 'made elsewhere' });
  t.equal(linked.authorId, existing.id, 'an author created outside stories is found');
  const byId = await createStory(ctx, { authorId: existing.id });
  t.equal(byId.authorName, 'Made Elsewhere');
});

t.test('seriesName finds a series case-insensitively, or creates one', async (t) => {
  const ctx = await buildTestApp(t);
  const first = await createStory(ctx, { seriesName: 'The Cycle', volume: 1 });
  const second = await createStory(ctx, { seriesName: '  the CYCLE', volume: 2 });
  t.equal(second.seriesId, first.seriesId);
  t.equal(second.seriesName, 'The Cycle');
  t.equal(findSeriesById(ctx.app.db, first.seriesId as string)?.storyCount, 2);

  const existing = findOrCreateSeries(ctx.app.db, 'Existing Saga');
  t.equal((await createStory(ctx, { seriesName: 'EXISTING saga' })).seriesId, existing.id);
  t.equal((await createStory(ctx, { seriesId: existing.id })).seriesName, 'Existing Saga');
  t.equal(findSeriesById(ctx.app.db, existing.id)?.storyCount, 2);
});

t.test('tagNames find tags case-insensitively or create them; duplicates collapse', async (t) => {
  const ctx = await buildTestApp(t);
  const premade = await createTag(ctx, 'Fantasy');
  const story = await createStory(ctx, { tagNames: [' FANTASY ', 'Dark', 'dark', 'New Tag'] });
  const tags = story.tags as Tag[];
  t.same(tags.map((tag) => tag.name), ['dark', 'fantasy', 'new tag']);
  t.equal(tags.find((tag) => tag.name === 'fantasy')?.id, premade.id, 'the existing tag is reused');

  const other = await createStory(ctx, { tagNames: ['dark'] });
  t.equal((other.tags as Tag[])[0]?.id, tags.find((tag) => tag.name === 'dark')?.id, 'a created tag is found by the next story');
  t.equal((other.tags as Tag[])[0]?.storyCount, 2);
  t.equal((await ctx.get('/api/tags')).json().totalElements, 3, 'no duplicate tags were created');

  const empty = await createStory(ctx, { tagNames: [] });
  t.same(empty.tags, []);
});

t.test('update links, relinks and unlinks authors and series', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { authorName: 'First Author', seriesName: 'First Series' });
  const firstAuthor = story.authorId as string;

  const moved = (await ctx.put(`/api/stories/${story.id}`, { authorName: 'Second Author', seriesName: 'first series' })).json();
  t.not(moved.authorId, firstAuthor, 'a new author was created and linked');
  t.equal(moved.authorName, 'Second Author');
  t.equal(moved.seriesId, story.seriesId, 'the series name found the same series');
  t.equal(findAuthorById(ctx.app.db, firstAuthor)?.storyCount, 0, 'the old author lost the story');
  t.equal(findAuthorById(ctx.app.db, moved.authorId)?.storyCount, 1);

  const back = (await ctx.put(`/api/stories/${story.id}`, { authorId: firstAuthor })).json();
  t.equal(back.authorId, firstAuthor);
  t.equal(back.authorName, 'First Author');
  t.equal(back.seriesId, story.seriesId, 'the series was not touched');

  const unlinked = (await ctx.put(`/api/stories/${story.id}`, { seriesId: null })).json();
  t.equal(unlinked.seriesId, null);
  t.equal(unlinked.seriesName, null);
  t.equal(unlinked.authorId, firstAuthor, 'the author was not touched');
  t.equal(findSeriesById(ctx.app.db, story.seriesId as string)?.storyCount, 0);
});

t.test('rating on create and update feeds the author counts', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx, { authorName: 'Rated', rating: 4 });
  await createStory(ctx, { authorName: 'rated', rating: 2 });
  const authorId = a.authorId as string;
  t.match(findAuthorById(ctx.app.db, authorId), { storyCount: 2, ratedStoryCount: 2, ratingSum: 6 });
  await ctx.put(`/api/stories/${a.id}`, { rating: null });
  t.match(findAuthorById(ctx.app.db, authorId), { storyCount: 2, ratedStoryCount: 1, ratingSum: 2 });
  await ctx.post(`/api/stories/${a.id}/rating`, { rating: 5 });
  t.match(findAuthorById(ctx.app.db, authorId), { ratedStoryCount: 2, ratingSum: 7 });
});
