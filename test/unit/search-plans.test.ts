/**
 * Story search picks its SQL shape from counts (src/search/embedded/story-plans.ts): small driving sets
 * are probed row by row, big ones become filter sets. A library small enough for a test only
 * ever takes the probe shape, so this forces each shape with `probeLimit` and checks that every
 * combination of text, filters, sort and page gives the same answer whichever shape runs it.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { findStories } from '../../src/search/embedded/stories.js';
import { storySearchRequest } from '../../src/search/service.js';
import type { StorySearchRequest } from '../../src/search/engine.js';
import { STORY_SEARCH_SORT_KEYS } from '../../src/schemas/search.js';

t.test('probe and sets plans agree on every search', async (t) => {
  const ctx = await buildTestApp(t);
  const authors = ['Ann', 'Bo', 'Cy', null];
  const tagSets = [['red'], ['red', 'blue'], ['blue'], [], ['green', 'red']];
  const statuses = ['reading', null, 'finished', 'want-to-read'];
  for (let i = 0; i < 24; i += 1) {
    const story = await createStory(ctx, {
      title: `${i % 3 === 0 ? 'Lantern' : 'Story'} ${String.fromCharCode(65 + ((i * 7) % 26))}${i}`,
      summary: i % 4 === 0 ? 'a lantern in the dark' : null,
      contentHtml: `<p>${'word '.repeat(i % 5)}${i % 2 === 0 ? 'lantern' : 'candle'} text ${i}</p>`,
      authorName: authors[i % authors.length],
      tagNames: tagSets[i % tagSets.length],
      rating: i % 6 === 0 ? null : (i % 5) + 1,
    });
    if (statuses[i % 4] !== null) await ctx.put(`/api/stories/${story.id}/reading-status`, { status: statuses[i % 4] });
    if (i % 3 === 1) await ctx.put(`/api/stories/${story.id}/favourite`, { favourite: true });
  }

  const queries = ['lantern', 'candle text', 'lant', '*', 'nothingmatches'];
  const filters: Partial<StorySearchRequest>[] = [
    {},
    { authors: ['ann'] },
    { authors: ['Ann', 'Cy'] },
    { tags: ['red'] },
    { tags: ['red', 'blue'] },
    { tags: ['green'] },
    { minRating: 3 },
    { maxRating: 2 },
    { authors: ['bo', 'cy'], tags: ['red'], minRating: 2, maxRating: 5 },
    { tags: ['blue'], minRating: 4 },
    { readingStatus: 'reading' },
    { readingStatus: 'on-hold' },
    { favourite: true },
    { favourite: false },
    { authors: ['ann'], readingStatus: 'want-to-read' },
    { tags: ['red'], readingStatus: 'finished', favourite: true, minRating: 1 },
  ];
  let compared = 0;
  for (const query of queries) {
    for (const filter of filters) {
      for (const sortBy of STORY_SEARCH_SORT_KEYS) {
        for (const sortDir of ['asc', 'desc'] as const) {
          for (const page of [0, 1]) {
            const request: StorySearchRequest = { query, ...filter, sortBy, sortDir, page, size: 4 };
            const probe = findStories(ctx.app.db, request);
            const sets = findStories(ctx.app.db, request, { probeLimit: 0 });
            const mixed = findStories(ctx.app.db, request, { probeLimit: 3 });
            const label = JSON.stringify(request);
            const ids = (result: typeof probe) => [result.totalHits, ...result.results.map((hit) => hit.id)];
            if (JSON.stringify(ids(sets)) !== JSON.stringify(ids(probe)) || JSON.stringify(ids(mixed)) !== JSON.stringify(ids(probe))) {
              t.same(ids(sets), ids(probe), `sets plan: ${label}`);
              t.same(ids(mixed), ids(probe), `mixed plan: ${label}`);
            }
            compared += 1;
          }
        }
      }
    }
  }
  t.equal(compared, queries.length * filters.length * STORY_SEARCH_SORT_KEYS.length * 4);

  const all = findStories(ctx.app.db, storySearchRequest({ query: 'lantern', size: 100 }), { probeLimit: 0 });
  t.equal(all.totalHits, 12 + 4, 'the 12 even-numbered bodies, plus the 4 odd stories titled Lantern');
  const filtered = findStories(ctx.app.db, storySearchRequest({ query: '*', tags: ['red', 'blue'], minRating: 1, size: 100 }), { probeLimit: 0 });
  t.ok(filtered.results.every((hit) => hit.tagNames.includes('red') && hit.tagNames.includes('blue') && hit.rating !== null));
  t.ok(filtered.totalHits > 0);
  const reading = findStories(ctx.app.db, storySearchRequest({ query: '*', readingStatus: 'reading', favourite: false, size: 100 }), { probeLimit: 0 });
  t.equal(reading.totalHits, 4, 'stories 0, 4, 8, ... 20 are reading; 4 and 16 are favourites');
  t.ok(reading.results.every((hit) => hit.readingStatus === 'reading' && !hit.favourite));
});
