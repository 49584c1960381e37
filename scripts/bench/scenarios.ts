/**
 * The scenarios of `npm run bench` and what each one draws per request (docs/performance.md,
 * "What each scenario draws"). No scenario repeats one URL: each draws its story, page, word,
 * filter or prefix from a pool built from the whole library (probe.ts), so no warm row or page
 * is measured over and over. The home page is the one URL of its kind.
 */
import { STORY_SORT_KEYS } from '../../src/schemas/story.js';
import { AUTHOR_SORT_KEYS } from '../../src/schemas/author.js';
import { SyntheticLibrary, DEFAULT_SEED } from '../lib/synthetic-library.js';
import type { Draw } from './load.js';
import { misspellings, PageDraw, pick, suggestionPrefixes, type Misspelling } from './pools.js';
import type { LibraryPools } from './probe.js';

/** Page size of every list the bench asks for (the API's default). */
export const PAGE_SIZE = 20;
/** The title of every story the create scenario writes (removed again from a kept library). */
export const CREATED_TITLE = 'Bench created story';
/** Tags the filtered searches and the creates draw from: the most used ones, as people pick them. */
const FILTER_TAGS = 30;
const CREATE_TAGS = 60;
/** Bodies the create scenario draws from (generating one costs ~1 ms: not inside the load). */
const CREATE_BODIES = 64;
/** Typos the typo scenario draws from; suggestion prefixes drawn from. */
const TYPO_POOL = 4_000;
const PREFIX_POOL = 4_000;

export type TargetCheck =
  | { kind: 'ratio'; min: number }
  | { kind: 'p99'; maxMs: number; connections: 1 | 10 }
  | { kind: 'rps'; min: number };

export interface Scenario {
  id: string;
  label: string;
  method: 'GET' | 'POST';
  status: number;
  /** What is drawn, with the pool's size (for the table). */
  pool: string;
  poolSize: number;
  draw: Draw;
  target?: TargetCheck;
}

/** The mixed scenario: story reads on some connections while common-word searches run on others. */
export interface MixedScenario {
  id: 'mixed';
  label: string;
  reads: Scenario;
  searches: Scenario;
  connectionsEach: number;
  target: { kind: 'p99'; maxMs: number };
}

const n = (value: number) => value.toLocaleString('en');
const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
const SORTS = STORY_SORT_KEYS.flatMap((key) => [`sortBy=${key}&sortDir=asc`, `sortBy=${key}&sortDir=desc`]);
const AUTHOR_SORTS = AUTHOR_SORT_KEYS.flatMap((key) => [`sortBy=${key}&sortDir=asc`, `sortBy=${key}&sortDir=desc`]);

/** The 1,500-word bodies, authors and tags the create scenario draws from. */
export function createBodies(pools: LibraryPools): string[] {
  const library = new SyntheticLibrary(10, DEFAULT_SEED + 7);
  const authors = pools.authors.length === 0 ? ['Bench Author'] : pools.authors.map((author) => author.name);
  const tags = pools.tags.slice(0, CREATE_TAGS).map((tag) => tag.name);
  const bodies: string[] = [];
  for (let i = 0; i < CREATE_BODIES; i += 1) {
    // Some inline markup, so the sanitizer has work like it would on a real story.
    const html = library
      .body(1500)
      .html.replace(/<p>(\S+) (\S+)/g, '<p><em>$1</em> $2')
      .replace(/ (\S+) (\S+) (\S+)\.<\/p>/g, ' <strong>$1</strong> <a href="https://example.org/$2">$2</a> $3.</p>');
    const picked = new Set<string>();
    for (let attempt = 0; picked.size < Math.min(3, tags.length) && attempt < 50; attempt += 1) picked.add(pick(tags, library.random));
    bodies.push(
      JSON.stringify({
        title: CREATED_TITLE,
        summary: 'A story written by the benchmark, with a body of 1,500 words.',
        contentHtml: html,
        authorName: pick(authors, library.random),
        tagNames: [...picked],
        rating: 1 + (i % 5),
      }),
    );
  }
  return bodies;
}

export interface ScenarioSet {
  api: Scenario[];
  mixed: MixedScenario;
  typos: Misspelling[];
  /** The create scenario's bodies, for the speed probe that runs before it (./speed-probe.ts). */
  createBodies: string[];
}

export function scenarios(pools: LibraryPools): ScenarioSet {
  const { storyIds, words } = pools;
  const pages = pools.lastPage + 1;
  const rare = words.rare.map((entry) => entry.term);
  const mid = words.mid.map((entry) => entry.term);
  const common = words.common.map((entry) => entry.term);
  const share = (band: typeof words.rare) =>
    band.length === 0 ? 'none' : `${((100 * band[band.length - 1]!.docs) / pools.stories).toFixed(2)}-${((100 * band[0]!.docs) / pools.stories).toFixed(2)} %`;
  const search = (params: Record<string, string>) => `/api/stories/search?${query(params)}`;
  const popular = pools.tags.slice(0, 20);
  const filterTags = pools.tags.slice(0, FILTER_TAGS);
  const authorPages = new PageDraw(
    pools.authors.map((author) => author.stories),
    PAGE_SIZE,
  );
  const tagPages = new PageDraw(
    popular.map((tag) => tag.stories),
    PAGE_SIZE,
  );
  const authorListPages = Math.max(1, Math.ceil(pools.authorRows / PAGE_SIZE));
  const typos = misspellings([...rare, ...mid], TYPO_POOL, pools.vocabulary, 0x7190);
  const prefixes = suggestionPrefixes(
    interleave([rare, mid, common]),
    PREFIX_POOL,
    0x5e6,
  );
  const bodies = createBodies(pools);
  const anyStory = (random: () => number) => pick(storyIds, random);
  // Every chapter of every long work (long-works.ts), each equally likely.
  const chapters = pools.longWorks.flatMap((work) => Array.from({ length: work.chapters }, (_, i) => ({ id: work.id, index: i + 1 })));
  const longWorkWords = `${n(pools.longWorks.length)} works of 40 chapters, 400,000 words`;
  const chapterScenario = (id: string, label: string, path: (id: string, index: number) => string): Scenario => ({
    id,
    label,
    method: 'GET',
    status: 200,
    pool: `any of the ${n(chapters.length)} chapters of ${longWorkWords}`,
    poolSize: chapters.length,
    draw: (random) => {
      const chapter = pick(chapters, random);
      return { path: path(chapter.id, chapter.index) };
    },
  });

  const story: Scenario = {
    id: 'story',
    label: 'story by id',
    method: 'GET',
    status: 200,
    pool: `any of the ${n(storyIds.length)} stories`,
    poolSize: storyIds.length,
    draw: (random) => ({ path: `/api/stories/${anyStory(random)}` }),
    target: { kind: 'ratio', min: 0.5 },
  };
  const searchCommon: Scenario = {
    id: 'search-common',
    label: 'search, common word',
    method: 'GET',
    status: 200,
    pool: `${n(common.length)} words, each in ${share(words.common)} of stories`,
    poolSize: common.length,
    draw: (random) => ({ path: search({ query: pick(common, random) }) }),
    target: { kind: 'p99', maxMs: 150, connections: 10 },
  };

  const api: Scenario[] = [
    {
      // No target: what any logged-in request costs before it does any work (HTTP, routing, the
      // token check, a tiny answer), the floor under the small answers' ratios below.
      id: 'floor',
      label: 'floor: GET /api/auth/verify',
      method: 'GET',
      status: 200,
      pool: 'one URL (no work behind it)',
      poolSize: 1,
      draw: () => ({ path: '/api/auth/verify' }),
    },
    story,
    {
      id: 'list-first',
      label: 'list, first page',
      method: 'GET',
      status: 200,
      pool: `page 0 in each of the ${SORTS.length} orders`,
      poolSize: SORTS.length,
      draw: (random) => ({ path: `/api/stories?page=0&size=${PAGE_SIZE}&${pick(SORTS, random)}` }),
      target: { kind: 'ratio', min: 0.5 },
    },
    {
      id: 'list-any',
      label: 'list, any page (newest first)',
      method: 'GET',
      status: 200,
      pool: `any of the ${n(pages)} pages`,
      poolSize: pages,
      draw: (random) => ({ path: `/api/stories?page=${Math.floor(random() * pages)}&size=${PAGE_SIZE}` }),
      target: { kind: 'ratio', min: 0.5 },
    },
    {
      id: 'list-last',
      label: 'list, last page',
      method: 'GET',
      status: 200,
      pool: `page ${n(pools.lastPage)} in each of the ${SORTS.length} orders`,
      poolSize: SORTS.length,
      draw: (random) => ({ path: `/api/stories?page=${pools.lastPage}&size=${PAGE_SIZE}&${pick(SORTS, random)}` }),
      target: { kind: 'ratio', min: 0.5 },
    },
    {
      id: 'list-sorted',
      label: 'list, any page in any order',
      method: 'GET',
      status: 200,
      pool: `${n(pages)} pages x ${SORTS.length} orders`,
      poolSize: pages * SORTS.length,
      draw: (random) => ({ path: `/api/stories?page=${Math.floor(random() * pages)}&size=${PAGE_SIZE}&${pick(SORTS, random)}` }),
    },
    {
      id: 'author-stories',
      label: "an author's stories, any page",
      method: 'GET',
      status: 200,
      pool: `${n(authorPages.pages)} pages of ${n(pools.authors.length)} authors`,
      poolSize: authorPages.pages,
      draw: (random) => {
        const [index, page] = authorPages.draw(random);
        return { path: `/api/stories/author/${pools.authors[index]!.id}?page=${page}&size=${PAGE_SIZE}` };
      },
      target: { kind: 'ratio', min: 0.3 },
    },
    {
      id: 'tag-stories',
      label: 'a popular tag\'s stories, any page',
      method: 'GET',
      status: 200,
      pool: `${n(tagPages.pages)} pages of the ${popular.length} most used tags`,
      poolSize: tagPages.pages,
      draw: (random) => {
        const [index, page] = tagPages.draw(random);
        return { path: `/api/stories/tags/${encodeURIComponent(popular[index]!.name)}?page=${page}&size=${PAGE_SIZE}` };
      },
      target: { kind: 'ratio', min: 0.3 },
    },
    {
      id: 'series-stories',
      label: "a series' stories",
      method: 'GET',
      status: 200,
      pool: `any of ${n(pools.series.length)} series`,
      poolSize: pools.series.length,
      draw: (random) => ({ path: `/api/stories/series/${pick(pools.series, random).id}` }),
    },
    {
      id: 'authors',
      label: 'authors, any page in any order',
      method: 'GET',
      status: 200,
      pool: `${n(authorListPages)} pages x ${AUTHOR_SORTS.length} orders`,
      poolSize: authorListPages * AUTHOR_SORTS.length,
      draw: (random) => ({ path: `/api/authors?page=${Math.floor(random() * authorListPages)}&size=${PAGE_SIZE}&${pick(AUTHOR_SORTS, random)}` }),
      target: { kind: 'ratio', min: 0.3 },
    },
    {
      id: 'tags-popular',
      label: 'popular tags',
      method: 'GET',
      status: 200,
      pool: 'limit 5 to 50',
      poolSize: 46,
      draw: (random) => ({ path: `/api/tags/popular?limit=${5 + Math.floor(random() * 46)}` }),
      target: { kind: 'ratio', min: 0.3 },
    },
    {
      id: 'search-rare',
      label: 'search, rare word',
      method: 'GET',
      status: 200,
      pool: `${n(rare.length)} words, each in ${share(words.rare)} of stories`,
      poolSize: rare.length,
      draw: (random) => ({ path: search({ query: pick(rare, random) }) }),
      target: { kind: 'p99', maxMs: 50, connections: 10 },
    },
    {
      id: 'search-mid',
      label: 'search, mid word',
      method: 'GET',
      status: 200,
      pool: `${n(mid.length)} words, each in ${share(words.mid)} of stories`,
      poolSize: mid.length,
      draw: (random) => ({ path: search({ query: pick(mid, random) }) }),
      target: { kind: 'p99', maxMs: 50, connections: 10 },
    },
    searchCommon,
    {
      id: 'search-filtered',
      label: 'search, mid word + tag + minimum rating',
      method: 'GET',
      status: 200,
      pool: `${n(mid.length)} mid words x ${filterTags.length} most used tags x minRating 2-4`,
      poolSize: mid.length * filterTags.length * 3,
      draw: (random) => ({ path: search({ query: pick(mid, random), tags: pick(filterTags, random).name, minRating: String(2 + Math.floor(random() * 3)) }) }),
      target: { kind: 'p99', maxMs: 50, connections: 10 },
    },
    {
      id: 'search-typo',
      label: 'search, one-edit misspelling',
      method: 'GET',
      status: 200,
      pool: `${n(typos.length)} misspellings of rare and mid words (deletion, insertion, substitution, transposition)`,
      poolSize: typos.length,
      // Its target is what tolerance adds to a query, read side by side with the word spelled
      // right by the recall check (./recall.ts), not this row's queueing at 10 connections.
      draw: (random) => ({ path: search({ query: pick(typos, random).typo }) }),
    },
    {
      id: 'suggestions',
      label: 'suggestions (limit 10)',
      method: 'GET',
      status: 200,
      pool: `${n(prefixes.length)} prefixes of 2-6 letters`,
      poolSize: prefixes.length,
      draw: (random) => ({ path: `/api/stories/search/suggestions?${query({ query: pick(prefixes, random), limit: '10' })}` }),
      target: { kind: 'p99', maxMs: 10, connections: 10 },
    },
    {
      id: 'image',
      label: 'a cover image',
      method: 'GET',
      status: 200,
      pool: `any of ${n(pools.coverPaths.length)} covers`,
      poolSize: pools.coverPaths.length,
      draw: (random) => ({ path: `/api/files/images/${pick(pools.coverPaths, random)}` }),
    },
    {
      id: 'page-home',
      label: 'web: home page (/)',
      method: 'GET',
      status: 200,
      pool: 'one URL',
      poolSize: 1,
      draw: () => ({ path: '/' }),
      target: { kind: 'p99', maxMs: 20, connections: 1 },
    },
    {
      id: 'page-library',
      label: 'web: library grid, any page',
      method: 'GET',
      status: 200,
      pool: `any of the ${n(pages)} pages`,
      poolSize: pages,
      draw: (random) => {
        const page = Math.floor(random() * pages);
        return { path: page === 0 ? '/library' : `/library?page=${page}` };
      },
      target: { kind: 'p99', maxMs: 20, connections: 1 },
    },
    {
      id: 'page-story',
      label: 'web: story page',
      method: 'GET',
      status: 200,
      pool: `any of the ${n(storyIds.length)} stories`,
      poolSize: storyIds.length,
      draw: (random) => ({ path: `/stories/${anyStory(random)}` }),
      target: { kind: 'p99', maxMs: 20, connections: 1 },
    },
    {
      id: 'page-reader',
      label: 'web: reader',
      method: 'GET',
      status: 200,
      pool: `any of the ${n(storyIds.length)} stories (300-8,000 words)`,
      poolSize: storyIds.length,
      draw: (random) => ({ path: `/stories/${anyStory(random)}/read` }),
      target: { kind: 'p99', maxMs: 20, connections: 1 },
    },
    chapterScenario('chapter', 'a chapter by index (JSON), in a 400,000-word work', (id, index) => `/api/stories/${id}/chapters/${index}`),
    {
      ...chapterScenario('page-chapter', 'web: reader, a chapter of a 400,000-word work', (id, index) => `/stories/${id}/read/${index}`),
      target: { kind: 'p99', maxMs: 20, connections: 1 },
    },
    {
      id: 'page-search',
      label: 'web: search page, mid word',
      method: 'GET',
      status: 200,
      pool: `${n(mid.length)} words, each in ${share(words.mid)} of stories`,
      poolSize: mid.length,
      draw: (random) => ({ path: `/search?${query({ q: pick(mid, random) })}` }),
      target: { kind: 'p99', maxMs: 20, connections: 1 },
    },
    {
      id: 'create',
      label: 'create a story (1,500 words, an author, 3 tags)',
      method: 'POST',
      status: 201,
      pool: `${bodies.length} bodies, each with one of ${n(pools.authors.length)} authors and 3 of the ${Math.min(CREATE_TAGS, pools.tags.length)} most used tags`,
      poolSize: bodies.length,
      draw: (random) => ({ path: '/api/stories', body: pick(bodies, random) }),
      target: { kind: 'rps', min: 400 },
    },
  ];
  const mixed: MixedScenario = {
    id: 'mixed',
    label: 'mixed: story by id (5 conn.) while common-word searches run (5 conn.)',
    reads: story,
    searches: searchCommon,
    connectionsEach: 5,
    target: { kind: 'p99', maxMs: 10 },
  };
  return { api, mixed, typos, createBodies: bodies };
}

/** The lists' items taken in turn (a, b, c, a, b, c, ...), so a prefix pool cut short still holds every band. */
export function interleave<T>(lists: readonly (readonly T[])[]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i += 1) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}
