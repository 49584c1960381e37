import type { SearchFacets, StorySearchDto, StorySearchResult } from '../../schemas/search.js';
import { nameList } from '../../search/service.js';
import { TAG_KINDS, TAG_KIND_FIELDS } from '../../schemas/tag.js';
import { tagHref } from '../layout/links.js';
import { TAG_KIND_LABELS } from '../tag-kinds.js';
import type { PageModel } from '../render.js';
import { exactWordsText, SEARCH_PAGE_SORTS, type SearchPageQuery, type SearchPageSort } from './query.js';

export interface LinkView {
  href: string;
  label: string;
}

export interface SearchHitView {
  title: string;
  href: string;
  author: LinkView | undefined;
  series: LinkView | undefined;
  tags: LinkView[];
  /** "4 of 5", or undefined when unrated. */
  rating: string | undefined;
  /** HTML: the engine's snippet, escaped around `<mark>` (checked by `safeSnippet`), or undefined. */
  snippetHtml: string | undefined;
  /** "In chapter 3: Dawn" when the words were found in a chapter of a work of several, else undefined. */
  chapter: string | undefined;
}

export interface PageLinkView {
  /** 1-based, as shown. */
  label: string;
  href: string;
  current: boolean;
}

export interface SortOptionView {
  value: SearchPageSort;
  label: string;
  selected: boolean;
}

/** The search page: the form (with what was asked), and the results when something was asked. */
export interface SearchView extends PageModel {
  q: string;
  authors: string[];
  tags: string[];
  /** The tag kind filters with names chosen (`fandoms`, …), each kept in the form as ticked boxes. */
  kindFilters: Array<{ field: string; label: string; id: string; names: string[] }>;
  minRating: number | undefined;
  maxRating: number | undefined;
  size: number | undefined;
  sorts: SortOptionView[];
  /** Names for the tag input's `<datalist>`: the most used tags. */
  tagChoices: string[];
  /** Undefined when nothing was asked (the help is shown instead). */
  results: SearchResultsView | undefined;
}

export interface SearchResultsView {
  /** The sentence of the live region: "12 stories found for “fox”". */
  summary: string;
  hits: SearchHitView[];
  previous: string | undefined;
  next: string | undefined;
  /** Bounded numbers around the current page; `undefined` marks a gap (…). */
  pages: Array<PageLinkView | undefined>;
  /** A link back to the first page when this one is past the last. */
  firstPage: string | undefined;
  /** When the engine corrected typos: the text it searched, and the search for the words as typed. */
  correction: { text: string; typed: string; exactHref: string } | undefined;
  /** Links that add one filter each, with how many of the results it keeps; empty groups are left out. */
  facets: FacetGroupView[];
}

export interface FacetLinkView extends LinkView {
  count: number;
}

export interface FacetGroupView {
  /** For the heading and the list's id: "Authors", "Tags", "Ratings". */
  title: string;
  id: string;
  links: FacetLinkView[];
}

/** Pages linked on each side of the current one, besides the first and the last. */
const PAGE_RADIUS = 2;

/**
 * The engines escape everything but their `<mark>` and `</mark>` (docs/api.md, "Fields › Search
 * results"); anything else means the snippet is not what they promise, so it is escaped whole
 * rather than trusted.
 */
export function safeSnippet(snippet: string | null): string | undefined {
  if (snippet === null || snippet === '') return undefined;
  if (!/<(?!\/?mark>)/.test(snippet)) return snippet;
  return snippet.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function hitView(hit: StorySearchDto): SearchHitView {
  return {
    title: hit.title,
    href: `/stories/${hit.id}`,
    author: hit.authorId !== null && hit.authorName !== null ? { href: `/authors/${hit.authorId}`, label: hit.authorName } : undefined,
    series:
      hit.seriesId !== null && hit.seriesName !== null
        ? { href: `/series/${hit.seriesId}`, label: hit.volume === null ? hit.seriesName : `${hit.seriesName}, volume ${hit.volume}` }
        : undefined,
    tags: hit.tagNames.map((name) => ({ href: tagHref(name), label: name })),
    rating: hit.rating === null ? undefined : `${hit.rating} of 5`,
    snippetHtml: safeSnippet(hit.snippet),
    chapter: hit.chapter === null || (hit.chapter.index === 1 && hit.chapter.title === '') ? undefined : `In chapter ${hit.chapter.index}${hit.chapter.title === '' ? '' : `: ${hit.chapter.title}`}`,
  };
}

/** The page's URL for `query` at `page`: the text and every filter kept, defaults left out. */
export function searchHref(query: SearchPageQuery, page: number): string {
  const params = new URLSearchParams();
  params.set('q', query.q);
  for (const name of nameList(query.authors) ?? []) params.append('authors', name);
  for (const name of nameList(query.tags) ?? []) params.append('tags', name);
  for (const kind of TAG_KINDS) {
    const field = TAG_KIND_FIELDS[kind].list;
    for (const name of nameList(query[field]) ?? []) params.append(field, name);
  }
  if (query.minRating !== undefined) params.set('minRating', String(query.minRating));
  if (query.maxRating !== undefined) params.set('maxRating', String(query.maxRating));
  if (query.sort !== undefined && query.sort !== 'relevance') params.set('sort', query.sort);
  if (query.size !== 20) params.set('size', String(query.size));
  if (page > 0) params.set('page', String(page));
  return `/search?${params.toString()}`;
}

function pageNumbers(query: SearchPageQuery, current: number, last: number): Array<PageLinkView | undefined> {
  const shown = new Set([0, last]);
  for (let page = current - PAGE_RADIUS; page <= current + PAGE_RADIUS; page += 1) if (page >= 0 && page <= last) shown.add(page);
  const sorted = [...shown].sort((a, b) => a - b);
  const links: Array<PageLinkView | undefined> = [];
  sorted.forEach((page, index) => {
    if (index > 0 && page - sorted[index - 1]! > 1) links.push(undefined);
    links.push({ label: String(page + 1), href: searchHref(query, page), current: page === current });
  });
  return links;
}

function summary(result: StorySearchResult, query: SearchPageQuery): string {
  const count = `${result.totalHits.toLocaleString('en')} ${result.totalHits === 1 ? 'story' : 'stories'} found`;
  const text = result.correctedQuery ?? query.q.trim();
  return text === '' || text === '*' ? `${count}.` : `${count} for “${text}”.`;
}

/**
 * The facets as links: each adds its author or tag to the filters (once: a name already chosen is
 * not offered) or sets the rating range to that one rating, back on the first page.
 */
function facetGroups(facets: SearchFacets | undefined, query: SearchPageQuery): FacetGroupView[] {
  if (facets === undefined) return [];
  const authors = nameList(query.authors) ?? [];
  const tags = nameList(query.tags) ?? [];
  const fold = (names: string[]) => new Set(names.map((name) => name.toLocaleLowerCase('en')));
  const chosenAuthors = fold(authors);
  const chosenTags = fold(tags);
  const groups: FacetGroupView[] = [
    {
      title: 'Authors',
      id: 'search-facet-authors',
      links: facets.authors
        .filter((facet) => !chosenAuthors.has(facet.name.toLocaleLowerCase('en')))
        .map((facet) => ({ label: facet.name, count: facet.count, href: searchHref({ ...query, authors: [...authors, facet.name] }, 0) })),
    },
    {
      title: 'Tags',
      id: 'search-facet-tags',
      links: facets.tags
        .filter((facet) => !chosenTags.has(facet.name.toLocaleLowerCase('en')))
        .map((facet) => ({ label: facet.name, count: facet.count, href: searchHref({ ...query, tags: [...tags, facet.name] }, 0) })),
    },
    // Each kind's tags (docs/decisions.md, "Tag kinds"), each link adding the name to that kind's filter.
    ...TAG_KINDS.map((kind) => {
      const field = TAG_KIND_FIELDS[kind].list;
      const chosen = nameList(query[field]) ?? [];
      const folded = fold(chosen);
      return {
        title: TAG_KIND_LABELS[kind],
        id: `search-facet-${kind}`,
        links: facets.tagKinds[kind]
          .filter((facet) => !folded.has(facet.name.toLocaleLowerCase('en')))
          .map((facet) => ({ label: facet.name, count: facet.count, href: searchHref({ ...query, [field]: [...chosen, facet.name] }, 0) })),
      };
    }),
    {
      title: 'Ratings',
      id: 'search-facet-ratings',
      links: facets.ratings
        .filter((facet) => !(query.minRating === facet.rating && query.maxRating === facet.rating))
        .map((facet) => ({
          label: `${facet.rating} of 5`,
          count: facet.count,
          href: searchHref({ ...query, minRating: facet.rating, maxRating: facet.rating }, 0),
        })),
    },
  ];
  return groups.filter((group) => group.links.length > 0);
}

export function searchResultsView(result: StorySearchResult, query: SearchPageQuery): SearchResultsView {
  const last = Math.max(0, Math.ceil(result.totalHits / query.size) - 1);
  const current = query.page;
  const past = current > last;
  return {
    summary: summary(result, query),
    hits: result.results.map(hitView),
    previous: current > 0 && !past ? searchHref(query, current - 1) : undefined,
    next: current < last ? searchHref(query, current + 1) : undefined,
    pages: last === 0 || past ? [] : pageNumbers(query, current, last),
    firstPage: past && result.totalHits > 0 ? searchHref(query, 0) : undefined,
    correction:
      result.correctedQuery === undefined
        ? undefined
        : { text: result.correctedQuery, typed: query.q.trim(), exactHref: searchHref({ ...query, q: exactWordsText(query.q) }, 0) },
    facets: facetGroups(result.facets, query),
  };
}

export function searchView(query: SearchPageQuery, tagChoices: string[], results: SearchResultsView | undefined): SearchView {
  const text = query.q.trim();
  return {
    title: results === undefined ? 'Search' : text === '' || text === '*' ? 'Search results' : `Search results for “${text}”`,
    searchQuery: query.q,
    q: query.q,
    authors: nameList(query.authors) ?? [],
    tags: nameList(query.tags) ?? [],
    kindFilters: TAG_KINDS.flatMap((kind) => {
      const field = TAG_KIND_FIELDS[kind].list;
      const names = nameList(query[field]) ?? [];
      return names.length === 0 ? [] : [{ field, label: TAG_KIND_LABELS[kind], id: `search-${field}-label`, names }];
    }),
    minRating: query.minRating,
    maxRating: query.maxRating,
    size: query.size === 20 ? undefined : query.size,
    sorts: (Object.keys(SEARCH_PAGE_SORTS) as SearchPageSort[]).map((value) => ({
      value,
      label: SEARCH_PAGE_SORTS[value].label,
      selected: value === (query.sort ?? 'relevance'),
    })),
    tagChoices,
    results,
  };
}

/** The suggestion fragment: each suggestion a link to its search. */
export interface SuggestionsView {
  suggestions: LinkView[];
}

export function suggestionsView(texts: string[]): SuggestionsView {
  return { suggestions: texts.map((text) => ({ label: text, href: `/search?${new URLSearchParams({ q: text }).toString()}` })) };
}
