/**
 * The search contract of docs/decisions.md, "Search", in Typesense's terms, so both engines answer
 * the same request the same way:
 *
 * - the text goes through the embedded engine's parser (../text/query.ts): its folded words are the
 *   query, operators are never passed on, the last word is a prefix only from 3 characters;
 *   typo tolerance and token dropping are off, so every word must match, as in FTS5;
 * - `authors` (any) and `tags` (all) are exact `filter_by` clauses: authors on their name key,
 *   tags on the stored name the documents carry (the engine first turns each asked-for spelling
 *   into the stored name of the tag it folds to, engine.ts); each tag kind's names (all) the same
 *   on that kind's field (`fandoms`, …), which holds only the story's tags of that kind; `minRating`/`maxRating`
 *   are a range on `rating`, which unrated stories lack; `readingStatus` and `favourite` are
 *   exact clauses on their own fields;
 * - every sort ends with `idKey` in the same direction, and optional values sort last, as the
 *   embedded engine's `NULLS LAST, id` does; relevance is `_text_match`, and `*` is the
 *   library's default order (newest first);
 * - 0-based pages become Typesense's 1-based ones.
 */
import { nameKey, storedTagName } from '../../lib/names.js';
import type { AuthorDto } from '../../schemas/author.js';
import { READING_STATUSES, type ReadingStatus } from '../../schemas/reading-status.js';
import { kindFacets, sortReadingStatuses } from '../present.js';
import { TAG_KINDS, TAG_KIND_FIELDS } from '../../schemas/tag.js';
import { FACET_VALUES_MAX, type AuthorSearchSortKey, type SearchFacets, type StorySearchSortKey } from '../../schemas/search.js';
import type { AuthorSearchRequest, SearchPage, StorySearchPage, StorySearchRequest } from '../engine.js';
import { parseQuery, type ParsedQuery } from '../text/query.js';
import { correctable, MIN_TYPO_LENGTH, withinOneEdit } from '../text/typos.js';
import { containsPhrase, foldedWords, foldWord } from '../text/words.js';
import type { FacetCount, SearchParameters, TypesenseSearchResult } from './client.js';
import type { AuthorDocument, StoryDocument } from './schema.js';
import { snippetFromHighlights, type HighlightTags } from './snippet.js';

/** Query fields and weights, in the embedded engine's order (title, names, summary/description, body). */
const STORY_QUERY_BY = ['title', 'authorName', 'seriesName', 'tagNames', 'summary', 'description', 'contentPlain'];
const STORY_WEIGHTS = [10, 5, 5, 5, 2, 2, 1];
const AUTHOR_QUERY_BY = ['name', 'notes', 'urls'];
const AUTHOR_WEIGHTS = [5, 1, 1];

/** Strict matching: every word, no typos, no dropped words. */
const STRICT = { num_typos: 0, typo_tokens_threshold: 0, drop_tokens_threshold: 0 };

/**
 * The second try when the exact text found nothing (docs/decisions.md, "Typo tolerance"): one typo
 * per word from four letters (never two: the embedded engine cannot afford them), still every word
 * and no dropped ones.
 */
const ONE_TYPO = { num_typos: 1, min_len_1typo: MIN_TYPO_LENGTH, min_len_2typo: 255, typo_tokens_threshold: 1, drop_tokens_threshold: 0 };

/** The facets a story search can ask for, as Typesense fields. */
const FACET_FIELDS = { authors: 'authorName', tags: 'tagNames', ratings: 'rating', readingStatuses: 'readingStatus', favourites: 'favourite' } as const;

/** A search Typesense cannot express exactly (the embedded engine answers it instead). */
export const NOT_EXPRESSIBLE = Symbol('not expressible');
/** A search that can match nothing (text without a searchable word). */
export const MATCHES_NOTHING = Symbol('matches nothing');

export type TypesensePlan = { parameters: SearchParameters; parsed: ParsedQuery } | typeof NOT_EXPRESSIBLE | typeof MATCHES_NOTHING;

/** A backtick literal; a value holding a backtick cannot be written in `filter_by`. */
function literal(value: string): string | typeof NOT_EXPRESSIBLE {
  return value.includes('`') ? NOT_EXPRESSIBLE : `\`${value}\``;
}

function textParameters(parsed: ParsedQuery, queryBy: string[], weights: number[]): SearchParameters {
  return {
    q: parsed.matchAll ? '*' : parsed.words.join(' '),
    query_by: queryBy.join(','),
    query_by_weights: weights.join(','),
    prefix: parsed.prefix,
    ...STRICT,
  };
}

function storyFilter(request: StorySearchRequest): string | typeof NOT_EXPRESSIBLE {
  const clauses: string[] = [];
  if (request.authors !== undefined && request.authors.length > 0) {
    const names = [...new Set(request.authors.map(nameKey))].map(literal);
    if (names.includes(NOT_EXPRESSIBLE)) return NOT_EXPRESSIBLE;
    clauses.push(`authorNameKey:=[${names.join(',')}]`);
  }
  const tagClauses: [string, readonly string[] | undefined][] = [
    ['tagNames', request.tags],
    ...TAG_KINDS.map((kind): [string, readonly string[] | undefined] => [TAG_KIND_FIELDS[kind].list, request.tagsByKind?.[kind]]),
  ];
  for (const [field, names] of tagClauses) {
    for (const tag of new Set((names ?? []).map(storedTagName))) {
      const value = literal(tag);
      if (value === NOT_EXPRESSIBLE) return NOT_EXPRESSIBLE;
      clauses.push(`${field}:=${value}`);
    }
  }
  if (request.minRating !== undefined || request.maxRating !== undefined) {
    clauses.push(`rating:>=${request.minRating ?? 1}`, `rating:<=${request.maxRating ?? 5}`);
  }
  // The statuses are a fixed list of plain words (the schema checks the value), so the literal is always expressible.
  if (request.readingStatus !== undefined) clauses.push(`readingStatus:=\`${request.readingStatus}\``);
  if (request.favourite !== undefined) clauses.push(`favourite:=${String(request.favourite)}`);
  return clauses.join(' && ');
}

const STORY_SORT_FIELDS: Record<Exclude<StorySearchSortKey, 'relevance'>, string> = {
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  title: 'titleKey',
  rating: 'rating',
  wordCount: 'wordCount',
  authorName: 'authorNameKey(missing_values: last)',
};

function storySort(sortBy: StorySearchSortKey, direction: 'asc' | 'desc', parsed: ParsedQuery): string {
  if (sortBy === 'relevance' && !parsed.matchAll) return `_text_match:${direction},createdAt:${direction},idKey:${direction}`;
  const field = STORY_SORT_FIELDS[sortBy === 'relevance' ? 'createdAt' : sortBy];
  return `${field}:${direction},idKey:${direction}`;
}

/** The Typesense search for a story search request (see the file comment). */
export function storySearchPlan(request: StorySearchRequest, tags: HighlightTags): TypesensePlan {
  const parsed = parseQuery(request.query);
  if (!parsed.matchAll && parsed.match === null) return MATCHES_NOTHING;
  const filter = storyFilter(request);
  if (filter === NOT_EXPRESSIBLE) return NOT_EXPRESSIBLE;
  const parameters: SearchParameters = {
    ...textParameters(parsed, STORY_QUERY_BY, STORY_WEIGHTS),
    sort_by: storySort(request.sortBy, request.sortDir, parsed),
    page: request.page + 1,
    per_page: request.size,
    // The body can be long and is never shown; its highlight is enough for the snippet.
    exclude_fields: 'contentPlain',
    highlight_fields: 'summary,description,contentPlain,title',
    // Short fields come back whole and are cut here, as the embedded engine cuts them.
    highlight_full_fields: 'summary,description,title',
    highlight_affix_num_tokens: 12,
    highlight_start_tag: tags.start,
    highlight_end_tag: tags.end,
  };
  if (filter !== '') parameters.filter_by = filter;
  if (request.facets === true) {
    parameters.facet_by = [...Object.values(FACET_FIELDS), ...TAG_KINDS.map((kind) => TAG_KIND_FIELDS[kind].list)].join(',');
    parameters.max_facet_values = FACET_VALUES_MAX;
  }
  return { parameters, parsed };
}

/**
 * The same search with one typo allowed per word (see {@link ONE_TYPO}), or undefined when no word
 * could be corrected. Words Storyshelf never corrects are sent as phrases, which Typesense matches
 * exactly: those of quoted pieces, and pieces of several words (`e-mail`), which the embedded
 * engine keeps as phrases.
 */
export function typoSearchParameters(parameters: SearchParameters, parsed: ParsedQuery): SearchParameters | undefined {
  if (parsed.matchAll || !parsed.pieces.some((piece) => !piece.quoted && piece.words.length === 1 && correctable(piece.words[0] as string))) return undefined;
  const q = parsed.pieces
    .map((piece) => (piece.quoted || piece.words.length > 1 ? `"${piece.words.join(' ')}"` : (piece.words[0] as string)))
    .join(' ');
  return { ...parameters, q, ...ONE_TYPO };
}

/**
 * The text as Typesense read it with typos (Typesense does not say): each correctable word that
 * no hit matched as it is becomes the matched word one edit away that most of the page's hits
 * hold, else `fallback(word)` (the embedded engine's best candidate), else stays.
 */
export function typoCorrectedText(result: TypesenseSearchResult<StoryDocument>, parsed: ParsedQuery, fallback: (word: string) => string | undefined): string {
  const seen = new Map<string, number>();
  for (const hit of result.hits ?? []) {
    const tokens = new Set<string>();
    for (const highlight of hit.highlights ?? []) {
      for (const token of (highlight.matched_tokens ?? []).flat()) tokens.add(foldWord(token));
    }
    for (const token of tokens) seen.set(token, (seen.get(token) ?? 0) + 1);
  }
  return parsed.pieces
    .map((piece) => {
      const word = piece.words[0] as string;
      if (piece.quoted || piece.words.length !== 1 || !correctable(word) || seen.has(word)) return piece.text;
      let best: string | undefined;
      for (const [token, count] of seen) {
        if (token !== word && withinOneEdit(token, word) && (best === undefined || count > (seen.get(best) as number))) best = token;
      }
      return best ?? fallback(word) ?? piece.text;
    })
    .join(' ');
}

/** Typesense's facet counts as SearchFacets: the same lists, ratings highest first, each tag kind from its own field. */
export function facetsFrom(counts: readonly FacetCount[] | undefined): SearchFacets {
  const values = (field: string) => counts?.find((facet) => facet.field_name === field)?.counts ?? [];
  const named = (field: string) =>
    values(field)
      .slice(0, FACET_VALUES_MAX)
      .map((entry) => ({ name: entry.value, count: entry.count }));
  const readingStatuses = values(FACET_FIELDS.readingStatuses)
    .filter((entry) => (READING_STATUSES as readonly string[]).includes(entry.value))
    .map((entry) => ({ readingStatus: entry.value as ReadingStatus, count: entry.count }));
  sortReadingStatuses(readingStatuses);
  return {
    authors: named(FACET_FIELDS.authors),
    tags: named(FACET_FIELDS.tags),
    tagKinds: kindFacets((kind) => named(TAG_KIND_FIELDS[kind].list)),
    ratings: values(FACET_FIELDS.ratings)
      .map((entry) => ({ rating: Number(entry.value), count: entry.count }))
      .sort((a, b) => b.rating - a.rating),
    readingStatuses,
    favourites: values(FACET_FIELDS.favourites).find((entry) => entry.value === 'true')?.count ?? 0,
  };
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** One page of StorySearchDto from Typesense's answer. */
export function storySearchPage(
  result: TypesenseSearchResult<StoryDocument>,
  request: StorySearchRequest,
  parsed: ParsedQuery,
  tags: HighlightTags,
): StorySearchPage {
  const results = (result.hits ?? []).map(({ document: doc, highlights }) => ({
    id: doc.id,
    title: doc.title,
    summary: doc.summary ?? null,
    authorId: doc.authorId ?? null,
    authorName: doc.authorName ?? null,
    seriesId: doc.seriesId ?? null,
    seriesName: doc.seriesName ?? null,
    volume: doc.volume ?? null,
    rating: doc.rating ?? null,
    wordCount: doc.wordCount,
    coverPath: doc.coverPath ?? null,
    sourceUrl: doc.sourceUrl ?? null,
    tagNames: doc.tagNames ?? [],
    createdAt: iso(doc.createdAt),
    updatedAt: iso(doc.updatedAt),
    readingStatus: (doc.readingStatus ?? null) as ReadingStatus | null,
    finishedAt: doc.finishedAt === undefined ? null : iso(doc.finishedAt),
    readCount: doc.readCount ?? 0,
    favourite: doc.favourite ?? false,
    snippet: parsed.matchAll ? null : snippetFromHighlights(doc, highlights ?? [], tags),
    // Typesense indexes the whole work as one field: where its highlight falls is not kept (docs/decisions.md, "Search").
    chapter: null,
  }));
  const page: StorySearchPage = { results, totalHits: result.found, page: request.page, perPage: request.size };
  if (request.facets === true) page.facets = facetsFrom(result.facet_counts);
  return page;
}

const AUTHOR_SORT_FIELDS: Record<AuthorSearchSortKey, string> = {
  name: 'nameKey',
  storyCount: 'storyCount',
  authorRating: 'authorRating',
  averageStoryRating: 'averageStoryRating',
  createdAt: 'createdAt',
};

/** The Typesense search for an author search request. */
export function authorSearchPlan(request: AuthorSearchRequest): TypesensePlan {
  const parsed = parseQuery(request.query);
  if (!parsed.matchAll && parsed.match === null) return MATCHES_NOTHING;
  const sortBy = request.sortBy;
  const direction = request.sortDir;
  const parameters: SearchParameters = {
    ...textParameters(parsed, AUTHOR_QUERY_BY, AUTHOR_WEIGHTS),
    // Names are unique, so the name needs no tie-breaker.
    sort_by: sortBy === 'name' ? `nameKey:${direction}` : `${AUTHOR_SORT_FIELDS[sortBy]}:${direction},idKey:${direction}`,
    page: request.page + 1,
    per_page: request.size,
    highlight_fields: 'none',
  };
  return { parameters, parsed };
}

/** One page of AuthorDto from Typesense's answer. */
export function authorSearchPage(result: TypesenseSearchResult<AuthorDocument>, request: AuthorSearchRequest): SearchPage<AuthorDto> {
  const results = (result.hits ?? []).map(({ document: doc }) => ({
    id: doc.id,
    name: doc.name,
    notes: doc.notes ?? null,
    avatarImagePath: doc.avatarImagePath ?? null,
    authorRating: doc.authorRating ?? null,
    averageStoryRating: doc.averageStoryRating ?? null,
    urls: doc.urls ?? [],
    storyCount: doc.storyCount,
    createdAt: iso(doc.createdAt),
    updatedAt: iso(doc.updatedAt),
  }));
  return { results, totalHits: result.found, page: request.page, perPage: request.size };
}

/** Stories read to gather suggestions from (Typesense's per-page maximum is 250). */
const SUGGESTION_HITS = 100;

/** The search behind suggestions: the text's words over titles and names, last word a prefix. */
export function suggestionParameters(text: string): SearchParameters | undefined {
  const words = foldedWords(text);
  if (words.length === 0) return undefined;
  return {
    q: words.join(' '),
    query_by: 'title,authorName,seriesName,tagNames',
    prefix: true,
    ...STRICT,
    per_page: SUGGESTION_HITS,
    include_fields: 'title,authorName,seriesName,tagNames',
    highlight_fields: 'none',
    sort_by: '_text_match:desc,createdAt:desc',
  };
}

/**
 * Suggestions from the stories Typesense found, ranked like the embedded engine's: a name by
 * how many of those stories carry it (a title counts 1), then texts whose first word matched,
 * then shorter texts; deduplicated case- and diacritic-insensitively, at most `limit`.
 */
export function suggestionsFrom(result: TypesenseSearchResult<Partial<StoryDocument>>, text: string, limit: number): string[] {
  const queryWords = foldedWords(text);
  const candidates = new Map<string, { text: string; weight: number; firstWord: boolean; length: number; order: number }>();
  let order = 0;
  const consider = (value: string | undefined, weight: number) => {
    if (value === undefined) return;
    const words = foldedWords(value);
    if (!containsPhrase(words, queryWords)) return;
    const folded = words.join(' ');
    const known = candidates.get(folded);
    if (known !== undefined) known.weight += weight;
    else {
      order += 1;
      candidates.set(folded, { text: value, weight, firstWord: containsPhrase(words.slice(0, queryWords.length), queryWords), length: folded.length, order });
    }
  };
  for (const { document: doc } of result.hits ?? []) {
    consider(doc.title, 1);
    consider(doc.authorName, 1);
    consider(doc.seriesName, 1);
    for (const tag of doc.tagNames ?? []) consider(tag, 1);
  }
  return [...candidates.values()]
    .sort((a, b) => b.weight - a.weight || Number(b.firstWord) - Number(a.firstWord) || a.length - b.length || a.order - b.order)
    .slice(0, limit)
    .map((candidate) => candidate.text);
}
