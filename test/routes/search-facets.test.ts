/**
 * Search facets (docs/decisions.md, "Search facets") through `GET /api/stories/search?facets=true`,
 * on both engines: counts over the whole result set whatever the page, the filters applied, the
 * 20-value bound, and no `facets` key unless asked for. Expected counts are computed here from
 * what the test wrote.
 */
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { ENGINES, engineWorld } from '../helpers/fake-typesense/app.js';
import { StorySearchResult, type SearchFacets } from '../../src/schemas/search.js';
import { READING_STATUSES, type ReadingStatus } from '../../src/schemas/reading-status.js';
import { matchesSchema } from '../helpers/schema.js';

interface Result {
  results: { id: string; title: string }[];
  totalHits: number;
  facets?: SearchFacets;
  correctedQuery?: string;
  [key: string]: unknown;
}


async function search(ctx: TestContext, params: Record<string, string | number | boolean | string[]>): Promise<Result> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
  const res = await ctx.get(`/api/stories/search?${query.toString()}`);
  if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as Result;
  if (!matchesSchema(StorySearchResult, body)) throw new Error(`result does not match StorySearchResult: ${res.body.slice(0, 300)}`);
  return body;
}

const NO_KINDS = { fandom: [], relationship: [], character: [], warning: [], category: [], rating: [], freeform: [] };

interface Spec {
  title: string;
  author?: string;
  tags: string[];
  rating?: number;
  body: string;
  readingStatus?: ReadingStatus;
  favourite?: boolean;
}

/** Counts of names over specs, most first then by name, as both engines order them. */
function expected(specs: readonly Spec[]): SearchFacets {
  const tally = (names: string[]) => {
    const counts = new Map<string, number>();
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
    return [...counts]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .slice(0, 20)
      .map(([name, count]) => ({ name, count }));
  };
  const ratings = new Map<number, number>();
  for (const spec of specs) if (spec.rating !== undefined) ratings.set(spec.rating, (ratings.get(spec.rating) ?? 0) + 1);
  return {
    authors: tally(specs.flatMap((spec) => (spec.author === undefined ? [] : [spec.author]))),
    tags: tally(specs.flatMap((spec) => spec.tags)),
    // The reader's own tags have no kind (test/routes/search-tag-kinds.test.ts counts kinds).
    tagKinds: NO_KINDS,
    ratings: [...ratings].sort(([a], [b]) => b - a).map(([rating, count]) => ({ rating, count })),
    readingStatuses: READING_STATUSES.map((readingStatus) => ({ readingStatus, count: specs.filter((spec) => spec.readingStatus === readingStatus).length })).filter(
      (entry) => entry.count > 0,
    ),
    favourites: specs.filter((spec) => spec.favourite === true).length,
  };
}

/**
 * 30 stories: four authors with 2 or 3 stories (ties ordered by name, as both engines do), 25 tags
 * (more than the 20 kept), ratings 1-5 or none; "lantern" in 27 of them.
 */
function library(): Spec[] {
  const authors = ['Ada Lane', 'Bob Baker', 'Cy Dunn', 'Di Eve'];
  const specs: Spec[] = [];
  for (let i = 0; i < 30; i += 1) {
    const author = i < 10 ? authors[i % 4] : undefined;
    const tags = ['common'];
    if (i % 2 === 0) tags.push('even');
    if (i % 3 === 0) tags.push('third');
    if (i >= 8) tags.push(`solo ${String(i).padStart(2, '0')}`);
    specs.push({
      title: `Tale ${i}`,
      author,
      tags,
      rating: i % 6 === 5 ? undefined : (i % 5) + 1,
      body: i % 10 === 9 ? '<p>Dark night.</p>' : '<p>A lantern in the dark night.</p>',
      // Every status but on-hold, some stories without one: a status no story has is not listed.
      readingStatus: (['want-to-read', 'reading', undefined, 'finished', 'abandoned'] as const)[i % 5],
      favourite: i % 4 === 1,
    });
  }
  return specs;
}

for (const engine of ENGINES) {
  t.test(`${engine}: facets count the whole result set, the same on every page`, async (t) => {
    const w = await engineWorld(t, engine);
    const specs = library();
    for (const spec of specs) {
      const story = await createStory(w.ctx, { title: spec.title, authorName: spec.author, tagNames: spec.tags, rating: spec.rating, contentHtml: spec.body });
      if (spec.readingStatus !== undefined) await w.ctx.put(`/api/stories/${story.id}/reading-status`, { status: spec.readingStatus });
      if (spec.favourite === true) await w.ctx.put(`/api/stories/${story.id}/favourite`, { favourite: true });
    }
    await w.settle();

    const matching = specs.filter((spec) => spec.body.includes('lantern'));
    const first = await search(w.ctx, { query: 'lantern', size: 5, facets: true });
    t.equal(first.totalHits, matching.length);
    t.equal(first.results.length, 5, 'a page of five');
    t.same(first.facets, expected(matching), 'counts over all 27 matches, not the page');
    t.equal(first.facets?.tags.length, 20, 'at most 20 tags of the 25 present');
    t.equal(first.facets?.tags[0]?.name, 'common');
    const second = await search(w.ctx, { query: 'lantern', size: 5, page: 1, facets: true });
    t.same(second.facets, first.facets, 'page 2 has the same facets');
    t.notSame(second.results.map((hit) => hit.id), first.results.map((hit) => hit.id));

    const every = await search(w.ctx, { query: '*', facets: true });
    t.same(every.facets, expected(specs), '"*" counts the whole library');

    const filtered = await search(w.ctx, { query: 'lantern', tags: 'even', minRating: 3, facets: true });
    const kept = matching.filter((spec) => spec.tags.includes('even') && spec.rating !== undefined && spec.rating >= 3);
    t.equal(filtered.totalHits, kept.length);
    t.same(filtered.facets, expected(kept), 'filters narrow the facets too');

    const byAuthor = await search(w.ctx, { query: '*', authors: 'bob baker', facets: true });
    t.same(byAuthor.facets?.authors, [{ name: 'Bob Baker', count: 3 }]);

    const reading = await search(w.ctx, { query: 'lantern', readingStatus: 'finished', facets: true });
    const finished = matching.filter((spec) => spec.readingStatus === 'finished');
    t.equal(reading.totalHits, finished.length, 'the reading-status filter');
    t.same(reading.facets, expected(finished), 'narrows the facets to one status');
    const favourites = await search(w.ctx, { query: '*', favourite: true, facets: true });
    t.same(favourites.facets, expected(specs.filter((spec) => spec.favourite === true)), 'favourites only');

    const none = await search(w.ctx, { query: 'zeppelin', facets: true });
    t.same(none.facets, { authors: [], tags: [], tagKinds: NO_KINDS, ratings: [], readingStatuses: [], favourites: 0 }, 'no match: empty facets');
    const unknownTag = await search(w.ctx, { query: '*', tags: 'no such tag', facets: true });
    t.same(unknownTag.facets, { authors: [], tags: [], tagKinds: NO_KINDS, ratings: [], readingStatuses: [], favourites: 0 });

    const plain = await search(w.ctx, { query: 'lantern', size: 5 });
    t.notOk('facets' in plain, 'no facets key without facets=true');
    const off = await search(w.ctx, { query: 'lantern', size: 5, facets: false });
    t.notOk('facets' in off, 'nor with facets=false');
  });

  t.test(`${engine}: facets after a typo correction count the corrected results`, async (t) => {
    const w = await engineWorld(t, engine);
    await createStory(w.ctx, { title: 'One', authorName: 'Ada Lane', tagNames: ['sea'], rating: 2, contentHtml: '<p>The lighthouse.</p>' });
    await createStory(w.ctx, { title: 'Two', tagNames: ['land'], contentHtml: '<p>A meadow.</p>' });
    await w.settle();
    const result = await search(w.ctx, { query: 'lighthuose', facets: true });
    t.equal(result.correctedQuery, 'lighthouse');
    t.same(result.facets, {
      authors: [{ name: 'Ada Lane', count: 1 }],
      tags: [{ name: 'sea', count: 1 }],
      tagKinds: NO_KINDS,
      ratings: [{ rating: 2, count: 1 }],
      readingStatuses: [],
      favourites: 0,
    });
  });
}

t.test('a facets value that is not a boolean is a 400', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.get('/api/stories/search?query=x&facets=maybe');
  t.equal(res.statusCode, 400);
  t.match(res.json(), { error: String, details: { facets: String } });
});
