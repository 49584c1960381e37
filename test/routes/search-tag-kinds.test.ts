/**
 * Tag kinds in story search (docs/decisions.md, "Tag kinds"; "Search facets") through
 * `GET /api/stories/search`, on both engines: each kind's filter (`fandoms`, …) keeps the stories
 * with every named tag of that kind, `tagKinds` counts each kind's tags over the whole result set,
 * the bounds are 400s, and a tag that gains a kind after its stories were indexed is found under it
 * (Typesense re-sends its stories). Kinds are given as importers give them (`setMissingTagKinds`,
 * inside a write transaction), then once end to end through a FanFicFare file.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { postImport, waitForJob } from '../helpers/import.js';
import { ENGINES, engineWorld } from '../helpers/fake-typesense/app.js';
import { matchesSchema } from '../helpers/schema.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { nameKey } from '../../src/lib/names.js';
import { StorySearchResult, type SearchFacets } from '../../src/schemas/search.js';
import type { TagKind } from '../../src/schemas/tag.js';
import { findOrCreateTags, setMissingTagKinds } from '../../src/tags/repository.js';


interface Result {
  results: { title: string }[];
  totalHits: number;
  facets?: SearchFacets;
}

function queryOf(params: Record<string, string | number | boolean | string[]>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
  return `/api/stories/search?${query.toString()}`;
}

async function search(ctx: TestContext, params: Record<string, string | number | boolean | string[]>): Promise<Result> {
  const res = await ctx.get(queryOf(params));
  if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as Result;
  if (!matchesSchema(StorySearchResult, body)) throw new Error(`result does not match StorySearchResult: ${res.body.slice(0, 300)}`);
  return body;
}

const titles = (result: Result) => result.results.map((hit) => hit.title).sort();

/** Gives tags their kinds the way an importer does: the first kind given sticks. */
function giveKinds(ctx: TestContext, kinds: Record<string, TagKind>): void {
  writeTransaction(ctx.app.db, (tx) => {
    const rows = findOrCreateTags(tx, Object.keys(kinds));
    setMissingTagKinds(tx, rows, new Map(Object.entries(kinds).map(([name, kind]) => [nameKey(name), kind])));
  });
}

const KINDS: Record<string, TagKind> = {
  'harry potter': 'fandom',
  'star trek': 'fandom',
  'kirk/spock': 'relationship',
  'harry potter/draco malfoy': 'relationship',
  'hermione granger': 'character',
  'major character death': 'warning',
  'm/m': 'category',
  teen: 'rating',
  explicit: 'rating',
  angst: 'freeform',
};

interface Spec {
  title: string;
  tags: string[];
  body: string;
}

/** Eight stories: tags of every kind, a reader's own tag ("to reread") beside them. */
const STORIES: Spec[] = [
  { title: 'A', tags: ['harry potter', 'harry potter/draco malfoy', 'teen', 'angst'], body: 'lantern' },
  { title: 'B', tags: ['harry potter', 'hermione granger', 'teen', 'to reread'], body: 'lantern' },
  { title: 'C', tags: ['harry potter', 'star trek', 'major character death', 'explicit'], body: 'lantern' },
  { title: 'D', tags: ['star trek', 'kirk/spock', 'm/m', 'explicit', 'angst'], body: 'lantern' },
  { title: 'E', tags: ['star trek', 'kirk/spock', 'm/m', 'teen'], body: 'meadow' },
  { title: 'F', tags: ['to reread', 'angst'], body: 'lantern' },
  { title: 'G', tags: ['harry potter', 'hermione granger', 'explicit'], body: 'meadow' },
  { title: 'H', tags: [], body: 'lantern' },
];

/** Each kind's counts over these specs, most first then by name (both engines' order). */
function expectedKinds(specs: readonly Spec[]): SearchFacets['tagKinds'] {
  const kinds: SearchFacets['tagKinds'] = { fandom: [], relationship: [], character: [], warning: [], category: [], rating: [], freeform: [] };
  const counts = new Map<string, number>();
  for (const spec of specs) for (const tag of spec.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  for (const [name, count] of [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))) {
    const kind = KINDS[name];
    if (kind !== undefined) kinds[kind].push({ name, count });
  }
  return kinds;
}

for (const engine of ENGINES) {
  t.test(`${engine}: each kind's filter keeps the stories with every named tag of that kind; facets count each kind`, async (t) => {
    const w = await engineWorld(t, engine);
    for (const spec of STORIES) await createStory(w.ctx, { title: spec.title, tagNames: spec.tags, contentHtml: `<p>A ${spec.body}.</p>` });
    // After the stories were indexed: the kinds reach the index through the tags' change alone.
    giveKinds(w.ctx, KINDS);
    await w.settle();

    t.same(titles(await search(w.ctx, { query: '*', fandoms: 'Harry Potter' })), ['A', 'B', 'C', 'G'], 'a fandom, any letter case');
    t.same(titles(await search(w.ctx, { query: '*', fandoms: ['harry potter', 'star trek'] })), ['C'], 'two fandoms: both required');
    t.same(titles(await search(w.ctx, { query: '*', fandoms: 'harry potter,star trek' })), ['C'], 'as one comma-separated value');
    t.same(titles(await search(w.ctx, { query: 'lantern', fandoms: 'star trek' })), ['C', 'D'], 'with text');
    t.same(titles(await search(w.ctx, { query: '*', relationships: 'kirk/spock', contentRatings: 'teen' })), ['E'], 'two kinds together');
    t.same(titles(await search(w.ctx, { query: '*', characters: 'hermione granger', warnings: [], tags: 'to reread' })), ['B'], 'with tags');
    t.same(titles(await search(w.ctx, { query: '*', categories: 'm/m', freeforms: 'angst' })), ['D']);
    t.same(titles(await search(w.ctx, { query: '*', warnings: 'major character death' })), ['C']);
    t.same(titles(await search(w.ctx, { query: '*', tags: 'harry potter', fandoms: 'harry potter' })), ['A', 'B', 'C', 'G'], 'one tag asked twice is one');
    t.same(titles(await search(w.ctx, { query: '*', tags: 'star trek' })), ['C', 'D', 'E'], '`tags` still matches a tag whatever its kind');
    t.equal((await search(w.ctx, { query: '*', fandoms: 'angst' })).totalHits, 0, 'a tag of another kind is no fandom');
    t.equal((await search(w.ctx, { query: '*', fandoms: 'to reread' })).totalHits, 0, "a reader's own tag has no kind");
    t.equal((await search(w.ctx, { query: '*', fandoms: 'no such fandom' })).totalHits, 0, 'an unknown name matches nothing');
    t.equal((await search(w.ctx, { query: '*', fandoms: 'angst', freeforms: 'angst' })).totalHits, 0, 'one name under two kinds matches nothing');

    const every = await search(w.ctx, { query: '*', facets: true });
    t.same(every.facets?.tagKinds, expectedKinds(STORIES), '"*" counts every kind over the library');
    t.same(every.facets?.tagKinds.fandom, [{ name: 'harry potter', count: 4 }, { name: 'star trek', count: 3 }]);
    const lantern = await search(w.ctx, { query: 'lantern', size: 2, facets: true });
    t.same(lantern.facets?.tagKinds, expectedKinds(STORIES.filter((spec) => spec.body === 'lantern')), 'over the whole result set, not the page');
    const narrowed = await search(w.ctx, { query: '*', fandoms: 'star trek', facets: true });
    const trek = STORIES.filter((spec) => spec.tags.includes('star trek'));
    t.same(narrowed.facets?.tagKinds, expectedKinds(trek), 'a kind filter narrows the facets');
    t.same(narrowed.facets?.tags.map((facet) => facet.name).sort(), [...new Set(trek.flatMap((spec) => spec.tags))].sort(), 'the tags facet keeps every tag, kinds included');
  });

  t.test(`${engine}: at most 20 values per kind, most stories first, ties by name`, async (t) => {
    const w = await engineWorld(t, engine);
    const kinds: Record<string, TagKind> = {};
    for (let i = 0; i < 24; i += 1) kinds[`fandom ${String(i).padStart(2, '0')}`] = 'fandom';
    // Fandom 23 on three stories, fandom 22 on two, the rest on one each.
    for (let i = 0; i < 24; i += 1) {
      const names = [`fandom ${String(i).padStart(2, '0')}`];
      if (i < 3) names.push('fandom 23');
      if (i < 2) names.push('fandom 22');
      await createStory(w.ctx, { title: `S${i}`, tagNames: names, contentHtml: '<p>A lantern.</p>' });
    }
    giveKinds(w.ctx, kinds);
    await w.settle();
    const expected = [
      { name: 'fandom 23', count: 4 },
      { name: 'fandom 22', count: 3 },
      ...Array.from({ length: 18 }, (_, i) => ({ name: `fandom ${String(i).padStart(2, '0')}`, count: 1 })),
    ];
    for (const query of ['*', 'lantern']) {
      const result = await search(w.ctx, { query, facets: true });
      t.same(result.facets?.tagKinds.fandom, expected, `${query}: the top 20`);
      t.same(result.facets?.tagKinds.character, [], `${query}: a kind no tag has is []`);
    }
  });
}

t.test('typesense: a tag that gains a kind from an import re-sends the stories that already had it', async (t) => {
  const w = await engineWorld(t, 'typesense');
  await createStory(w.ctx, { title: 'Mine', tagNames: ['Power Rangers'], contentHtml: '<p>Morphin time.</p>' });
  await w.settle();
  t.equal((await search(w.ctx, { query: '*', fandoms: 'power rangers' })).totalHits, 0, 'no kind yet: no fandom');
  const file = path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare', 'test1-s673-authors.epub');
  const res = await postImport(w.ctx, [{ filename: 'test1-s673-authors.epub', data: fs.readFileSync(file) }]);
  t.equal(res.statusCode, 202, res.body);
  t.match(await waitForJob(w.ctx, res.json().jobId), { status: 'done', done: 1 });
  await w.settle();
  const found = await search(w.ctx, { query: '*', fandoms: 'power rangers', facets: true });
  t.same(titles(found), ['Mine', 'Test Story Title 673'], 'the earlier story is a fandom story now too');
  t.same(found.facets?.tagKinds.fandom.find((facet) => facet.name === 'power rangers'), { name: 'power rangers', count: 2 });
  t.equal(w.ctx.app.searchEngine.kind, 'typesense', 'Typesense answered');
});

t.test('the kind filters are bounded like tags, one 400 naming each field', async (t) => {
  const ctx = await buildTestApp(t);
  const many = (n: number) => Array.from({ length: n }, (_, i) => `name ${i}`);
  const tooMany = await ctx.get(queryOf({ query: '*', fandoms: many(101) }));
  t.equal(tooMany.statusCode, 400);
  t.match(tooMany.json(), { error: String, details: { fandoms: String } }, 'more than 100 values');
  const commas = await ctx.get(queryOf({ query: '*', contentRatings: [many(60).join(','), many(60).join(',')] }));
  t.equal(commas.statusCode, 400);
  t.match(commas.json(), { details: { contentRatings: /at most 100/ } }, 'more than 100 names once split at commas');
  const together = await ctx.get(queryOf({ query: '*', tags: many(60), characters: many(41) }));
  t.equal(together.statusCode, 400);
  t.match(together.json(), { details: { tags: /in all/, characters: /in all/ } }, 'more than 100 required tags across the tag filters');
  const long = await ctx.get(queryOf({ query: '*', warnings: 'x'.repeat(1001) }));
  t.equal(long.statusCode, 400);
  t.match(long.json(), { details: { warnings: String } }, 'a value over 1,000 characters');
  t.equal((await ctx.get(queryOf({ query: '*', tags: many(50), characters: many(50) }))).statusCode, 200, '100 in all is fine');
});
