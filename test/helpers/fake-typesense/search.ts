/**
 * `GET /collections/:c/documents/search` for the fake: `q` over `query_by` (every query word must
 * occur in one of the fields, the last one as a prefix where `prefix` allows; no dropped words;
 * a `"quoted phrase"` must occur as consecutive words of one field, exactly), typo tolerance as
 * Typesense documents it (./typos.ts: `num_typos` default 2, bounded per word by `min_len_1typo`
 * (4) and `min_len_2typo` (7), tried only when the exact words found fewer hits than
 * `typo_tokens_threshold` (1); never inside phrases), `facet_by` over facet fields with
 * `max_facet_values` (default 10), counted over every hit, `filter_by` (./filter.ts), up to three `sort_by` fields with
 * `missing_values`, 1-based `page`, `per_page` up to 250, `include_fields` / `exclude_fields`,
 * and v1 `highlights`: a `snippet` (the text cut to `highlight_affix_num_tokens` words around
 * the first match when longer than `snippet_threshold`), and the whole field as `value` for the
 * fields in `highlight_full_fields`. `text_match` is a simple score (the best field's number of
 * matched words, then its weight); it orders like Typesense only in simple cases.
 */
import { compileFilter } from './filter.js';
import { ApiError, isNumeric, type Collection, type Document } from './store.js';
import { tokenize, type Token } from './text.js';
import { facetCounts, parseQueryText, typoBudget, wordMatches, type QueryText, type TypoSettings } from './typos.js';

type Params = URLSearchParams;

interface SortSpec {
  field: string;
  descending: boolean;
  missing: 'first' | 'last' | undefined;
}

interface Hit {
  document: Document;
  textMatch: number;
  highlights: Record<string, unknown>[];
}

function integer(params: Params, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ApiError(400, `Parameter \`${name}\` must be an unsigned integer.`);
  return Number(raw);
}

function list(raw: string | null): string[] {
  return raw === null || raw.trim() === '' ? [] : raw.split(',').map((item) => item.trim());
}

function parseSort(raw: string | null, collection: Collection): SortSpec[] {
  const specs = list(raw).map((part) => {
    const match = /^([\w.]+)(?:\(\s*missing_values\s*:\s*(first|last)\s*\))?:(\w+)$/i.exec(part);
    if (match === null) throw new ApiError(400, `Could not parse the sort_by expression \`${part}\`.`);
    const [, field, missing, order] = match as unknown as [string, string, string | undefined, string];
    if (!/^(asc|desc)$/i.test(order)) throw new ApiError(400, `Order for field\` ${field}\` should be either ASC or DESC.`);
    if (field !== '_text_match') {
      const spec = collection.fieldMap.get(field);
      if (spec === undefined || !spec.sort || spec.type.endsWith('[]')) {
        throw new ApiError(404, `Could not find a field named \`${field}\` in the schema for sorting.`);
      }
    }
    return { field, descending: order.toLowerCase() === 'desc', missing: missing?.toLowerCase() as SortSpec['missing'] };
  });
  if (specs.length > 3) throw new ApiError(400, 'Only upto 3 sort_by fields can be specified.');
  if (specs.length === 0) {
    specs.push({ field: '_text_match', descending: true, missing: undefined });
    if (collection.defaultSortingField !== '') specs.push({ field: collection.defaultSortingField, descending: true, missing: undefined });
  }
  return specs;
}

function compare(a: Hit, b: Hit, specs: SortSpec[], collection: Collection): number {
  for (const spec of specs) {
    if (spec.field === '_text_match') {
      const order = a.textMatch - b.textMatch;
      if (order !== 0) return spec.descending ? -order : order;
      continue;
    }
    const numeric = isNumeric((collection.fieldMap.get(spec.field) as { type: string }).type);
    const value = (hit: Hit) => {
      const raw = hit.document[spec.field];
      return raw === undefined || raw === null || raw === '' ? undefined : raw;
    };
    const left = value(a);
    const right = value(b);
    if (left === undefined || right === undefined) {
      if (left === right) continue;
      // Numbers: missing last in both directions; strings: missing is the highest value.
      const missingPlace = spec.missing ?? (numeric ? 'last' : spec.descending ? 'first' : 'last');
      return (left === undefined) === (missingPlace === 'first') ? -1 : 1;
    }
    const order = numeric ? Number(left) - Number(right) : String(left) < String(right) ? -1 : String(left) > String(right) ? 1 : 0;
    if (order !== 0) return spec.descending ? -order : order;
  }
  return (collection.sequence.get(a.document.id) ?? 0) - (collection.sequence.get(b.document.id) ?? 0);
}

/**
 * Which query words a text holds (the last one as a prefix when allowed, each within its typo
 * budget), and which phrases, by token.
 */
function matchesIn(tokens: Token[], query: QueryText, prefix: boolean, typos: number[]): { matched: Set<number>; spans: Token[] } {
  const matched = new Set<number>();
  const spans = new Set<Token>();
  tokens.forEach((token, position) => {
    query.words.forEach((word, index) => {
      const last = index === query.words.length - 1 && query.lastIsWord;
      if (wordMatches(token.folded, word, last && prefix, typos[index] ?? 0)) {
        matched.add(index);
        spans.add(token);
      }
    });
    query.phrases.forEach((phrase, index) => {
      if (phrase.every((word, offset) => tokens[position + offset]?.folded === word)) {
        matched.add(query.words.length + index);
        phrase.forEach((_word, offset) => spans.add(tokens[position + offset] as Token));
      }
    });
  });
  return { matched, spans: [...spans].sort((a, b) => a.start - b.start) };
}

interface HighlightOptions {
  start: string;
  end: string;
  affix: number;
  threshold: number;
}

/** The text with tags around the matches; a long text is cut to `affix` words around the first. */
function snippetOf(text: string, spans: Token[], options: HighlightOptions): { snippet: string; tokens: string[] } {
  let from = 0;
  let to = text.length;
  if (text.length > options.threshold) {
    const words = tokenize(text);
    const first = words.findIndex((word) => word.start === (spans[0] as Token).start);
    from = (words[Math.max(0, first - options.affix)] as Token).start;
    to = (words[Math.min(words.length - 1, first + options.affix)] as Token).end;
  }
  let snippet = '';
  let cursor = from;
  const tokens: string[] = [];
  for (const span of spans) {
    if (span.start < from || span.end > to) continue;
    snippet += text.slice(cursor, span.start) + options.start + text.slice(span.start, span.end) + options.end;
    tokens.push(text.slice(span.start, span.end));
    cursor = span.end;
  }
  return { snippet: snippet + text.slice(cursor, to), tokens };
}

function project(document: Document, include: string[], exclude: string[]): Document {
  const entries = Object.entries(document).filter(([key]) => (include.length === 0 || include.includes(key)) && !exclude.includes(key));
  return Object.fromEntries(entries) as Document;
}

/** Runs one search and returns Typesense's response body. */
export function search(collection: Collection, params: Params): Record<string, unknown> {
  const started = process.hrtime.bigint();
  const q = params.get('q');
  if (q === null) throw new ApiError(400, 'Parameter `q` is required.');
  const wildcard = q.trim() === '*';
  const queryBy = list(params.get('query_by'));
  if (!wildcard && queryBy.length === 0) throw new ApiError(400, 'Parameter `query_by` is required.');
  for (const name of queryBy) {
    const field = collection.fieldMap.get(name);
    if (field === undefined || !field.index || !field.type.startsWith('string')) throw new ApiError(404, `Could not find a field named \`${name}\` in the schema.`);
  }
  const weights = list(params.get('query_by_weights')).map(Number);
  if (weights.length > 0 && weights.length !== queryBy.length) {
    throw new ApiError(400, 'Number of weights in `query_by_weights` does not match number of `query_by` fields.');
  }
  const prefixes = list(params.get('prefix')).map((value) => value !== 'false');
  if (prefixes.length > 1 && prefixes.length !== queryBy.length) {
    throw new ApiError(400, 'Number of prefix values in `prefix` does not match number of `query_by` fields.');
  }
  const page = integer(params, 'page', 1);
  if (page < 1) throw new ApiError(422, 'Page must be an integer of value greater than 0.');
  const perPage = integer(params, 'per_page', 10);
  if (perPage > 250) throw new ApiError(422, 'Only upto 250 hits can be fetched per page.');
  const filterBy = params.get('filter_by');
  const filter = filterBy === null || filterBy.trim() === '' ? () => true : compileFilter(filterBy, collection);
  const sorts = parseSort(params.get('sort_by'), collection);
  const highlightFields = params.get('highlight_fields') === 'none' ? [] : list(params.get('highlight_fields') ?? queryBy.join(','));
  const highlight: HighlightOptions = {
    start: params.get('highlight_start_tag') ?? '<mark>',
    end: params.get('highlight_end_tag') ?? '</mark>',
    affix: integer(params, 'highlight_affix_num_tokens', 4),
    threshold: integer(params, 'snippet_threshold', 30),
  };
  const fullFields = params.get('highlight_full_fields') === 'none' ? [] : list(params.get('highlight_full_fields'));
  const query: QueryText = wildcard ? { words: [], phrases: [], lastIsWord: false } : parseQueryText(q);
  const typoSettings: TypoSettings = {
    numTypos: integer(params, 'num_typos', 2),
    minLen1: integer(params, 'min_len_1typo', 4),
    minLen2: integer(params, 'min_len_2typo', 7),
    threshold: integer(params, 'typo_tokens_threshold', 1),
  };
  const facetBy = list(params.get('facet_by'));
  for (const name of facetBy) {
    if (collection.fieldMap.get(name)?.facet !== true) throw new ApiError(404, `Could not find a facet field named \`${name}\` in the schema.`);
  }
  const maxFacetValues = integer(params, 'max_facet_values', 10);
  const prefixFor = (field: string) => prefixes[Math.max(0, queryBy.indexOf(field))] ?? prefixes[0] ?? true;
  const valuesOf = (document: Document, field: string): string[] => {
    const value = document[field];
    if (value === undefined || value === null) return [];
    return (Array.isArray(value) ? value : [value]).map(String);
  };

  const run = (typos: number[]): Hit[] => {
    const hits: Hit[] = [];
    const wanted = query.words.length + query.phrases.length;
    for (const document of collection.documents.values()) {
      if (!filter(document)) continue;
      let textMatch = 0;
      if (!wildcard) {
        const found = new Set<number>();
        queryBy.forEach((field, index) => {
          const matched = new Set<number>();
          for (const value of valuesOf(document, field)) for (const word of matchesIn(tokenize(value), query, prefixFor(field), typos).matched) matched.add(word);
          for (const word of matched) found.add(word);
          if (matched.size > 0) textMatch = Math.max(textMatch, matched.size * 128 + (weights[index] ?? queryBy.length - index));
        });
        if (found.size < wanted) continue;
      }
      const highlights: Record<string, unknown>[] = [];
      if (!wildcard) {
        for (const field of highlightFields) {
          const spec = collection.fieldMap.get(field);
          const values = valuesOf(document, field).map((value) => ({ value, ...matchesIn(tokenize(value), query, prefixFor(field), typos) }));
          if (spec?.type === 'string[]') {
            const hitValues = values.map((entry, index) => ({ ...entry, index })).filter((entry) => entry.spans.length > 0);
            if (hitValues.length === 0) continue;
            const snippets = hitValues.map((entry) => snippetOf(entry.value, entry.spans, highlight));
            highlights.push({
              field,
              indices: hitValues.map((entry) => entry.index),
              matched_tokens: snippets.map((snippet) => snippet.tokens),
              snippets: snippets.map((snippet) => snippet.snippet),
            });
          } else if (values[0] !== undefined && values[0].spans.length > 0) {
            const { snippet, tokens } = snippetOf(values[0].value, values[0].spans, highlight);
            const entry: Record<string, unknown> = { field, matched_tokens: tokens, snippet };
            if (fullFields.includes(field)) entry.value = snippetOf(values[0].value, values[0].spans, { ...highlight, threshold: Infinity }).snippet;
            highlights.push(entry);
          }
        }
      }
      hits.push({ document, textMatch: wildcard ? 100 : textMatch, highlights });
    }
    return hits;
  };
  let hits = run(query.words.map(() => 0));
  // Typo variants only while the exact words found too few hits; phrases are never varied.
  if (!wildcard && hits.length < typoSettings.threshold) {
    const budgets = query.words.map((word) => typoBudget(word, typoSettings));
    if (budgets.some((budget) => budget > 0)) hits = run(budgets);
  }
  hits.sort((a, b) => compare(a, b, sorts, collection));

  const include = list(params.get('include_fields'));
  const exclude = list(params.get('exclude_fields'));
  const window = hits.slice((page - 1) * perPage, page * perPage);
  return {
    facet_counts: facetBy.map((field) => facetCounts(field, hits.map((hit) => hit.document), maxFacetValues, isNumeric(collection.fieldMap.get(field)?.type ?? ''))),
    found: hits.length,
    hits: window.map((hit) => ({
      document: project(hit.document, include, exclude),
      highlights: hit.highlights,
      highlight: {},
      text_match: hit.textMatch,
    })),
    out_of: collection.documents.size,
    page,
    request_params: { collection_name: collection.name, per_page: perPage, q },
    search_cutoff: false,
    search_time_ms: Number((process.hrtime.bigint() - started) / 1_000_000n),
  };
}
