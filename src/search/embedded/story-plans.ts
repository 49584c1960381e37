/**
 * Phase 1 of story search: the SQL that picks one page of story `seq`s and the total, without
 * reading a single story row (rows are ~27 KB, and everything after the body sits behind a chain
 * of overflow pages). Attributes come from `stories_search_attrs_idx` (seq -> rating, author,
 * id, dates, word count, title), tag links from `story_tags`' primary key.
 *
 * Two shapes, picked from cheap counts (measured at 100k stories, docs/performance.md):
 *
 * - probe: a small driving set (the FTS matches, one tag's stories or the listed authors'
 *   stories, at most {@link PROBE_LIMIT}) is walked once; each row's filters and sort key are
 *   looked up by seq, and `count(*) OVER ()` gives the total in the same pass.
 * - sets: for big sets, each filter becomes a set of seqs built once from its covering index
 *   (`+x IN (...)`, the `+` keeping SQLite from pushing it into FTS5 as a rowid lookup per
 *   element), and either FTS5 ranks the matches or the sort index is walked in order until the
 *   page is full.
 *
 * Relevance is bm25 over FTS5's columns (weights in the migration), so it is only ever computed
 * with FTS5 as the outer loop; ties are broken by seq.
 */
import type { SortDirection } from '../../lib/pagination.js';
import type { StorySearchSortKey } from '../../schemas/search.js';

/** Largest driving set walked row by row; above it, filters become sets. */
export const PROBE_LIMIT = 10_000;

export interface SearchFilter {
  /** JSON array of author ids (any of them), or null. */
  authors: string | null;
  /** Stories the listed authors have (their trigger-maintained counts). */
  authorStories: number;
  /** JSON array of tag ids (all of them), or null. */
  tags: string | null;
  /** The same ids, for per-row checks. */
  tagIds: string[];
  tagCount: number;
  /** The listed tag with the fewest stories, and how many it has. */
  rarestTag: string | null;
  rarestTagStories: number;
  /** Inclusive bounds; null when there is no rating filter (unrated stories are then included). */
  minRating: number | null;
  maxRating: number | null;
  /** One reading status, or null for any (docs/decisions.md, "Reading status"). */
  readingStatus: string | null;
  /** 1: favourites only, 0: the others, null: any. */
  favourite: number | null;
}

export interface StoryPlan {
  /** Page query: `seq` and, for probe plans, `total` on every row. */
  page: string;
  /** Count query for the same stories (sets plans, or a page past the end). */
  count: string;
  /** True when the page query also returns the total. */
  windowed: boolean;
}

export interface PlanInput {
  match: string | null;
  /** Matches of `match` alone (when there is one), else every story. */
  candidates: number;
  filter: SearchFilter;
  sortBy: StorySearchSortKey;
  direction: SortDirection;
  /** Overrides {@link PROBE_LIMIT} (tests force each shape with it). */
  probeLimit?: number;
}

const ATTRS = 'stories s INDEXED BY stories_search_attrs_idx';
const AUTHOR_JOIN = 'LEFT JOIN authors a ON a.id = s.author_id';

/** The index each sort walks in sets plans, and its ORDER BY (`?` is the direction). */
const SORTS: Record<Exclude<StorySearchSortKey, 'relevance'>, { index: string; order: string }> = {
  createdAt: { index: 'stories_created_at_idx', order: 's.created_at ?, s.id ?' },
  updatedAt: { index: 'stories_updated_at_idx', order: 's.updated_at ?, s.id ?' },
  title: { index: 'stories_title_idx', order: 's.title COLLATE NOCASE ?, s.id ?' },
  wordCount: { index: 'stories_word_count_idx', order: 's.word_count ?, s.id ?' },
  rating: { index: 'stories_search_attrs_idx', order: 's.rating ? NULLS LAST, s.id ?' },
  authorName: { index: 'stories_search_attrs_idx', order: 'a.name_key ? NULLS LAST, s.id ?' },
};

const where = (conditions: readonly string[]) => (conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`);
/** True when any filter narrows the stories (the text aside). */
export const isFiltered = (filter: SearchFilter) =>
  filter.authors !== null || filter.tags !== null || filter.minRating !== null || filter.readingStatus !== null || filter.favourite !== null;

/**
 * The reader's filters as sets of seqs, each from its own covering index: the columns sit at the
 * end of the story row, behind its text, and the attrs index does not hold them.
 */
function readerSets(filter: SearchFilter, seq: string): string[] {
  const conditions: string[] = [];
  if (filter.readingStatus !== null) {
    conditions.push(`+${seq} IN (SELECT seq FROM stories INDEXED BY stories_reading_status_idx WHERE reading_status = @readingStatus)`);
  }
  if (filter.favourite !== null) conditions.push(`+${seq} IN (SELECT seq FROM stories INDEXED BY stories_favourite_idx WHERE favourite = @favourite)`);
  return conditions;
}

/** Per-row filter checks on the attrs row `s` (probe plans); the driving tag needs none. */
function probeConditions(filter: SearchFilter, match: string | null, driver: Driver | null): string[] {
  const conditions: string[] = [];
  if (filter.minRating !== null) conditions.push('s.rating BETWEEN @minRating AND @maxRating');
  if (filter.authors !== null && driver !== 'authors') conditions.push('s.author_id IN (SELECT value FROM json_each(@authors))');
  filter.tagIds.forEach((tagId, index) => {
    if (driver === 'tag' && tagId === filter.rarestTag) return;
    conditions.push(`EXISTS (SELECT 1 FROM story_tags st WHERE st.story_id = s.id AND st.tag_id = @tag${index})`);
  });
  conditions.push(...readerSets(filter, 's.seq'));
  if (match !== null && driver !== 'fts') conditions.push('+s.seq IN (SELECT rowid FROM stories_fts WHERE stories_fts MATCH @match)');
  return conditions;
}

/**
 * Filter sets (sets plans) on the seq expression `seq`. Given `id` (the rows walked carry the
 * story id, as every sort index does), the tag set is of story ids straight from story_tags'
 * (tag_id, story_id) index, which saves an id -> seq lookup per link.
 */
function setConditions(filter: SearchFilter, seq: string, id?: string): string[] {
  const conditions: string[] = [];
  if (filter.minRating !== null) conditions.push(`+${seq} IN (SELECT seq FROM stories WHERE rating BETWEEN @minRating AND @maxRating)`);
  if (filter.authors !== null) {
    conditions.push(`+${seq} IN (SELECT seq FROM stories WHERE author_id IN (SELECT value FROM json_each(@authors)))`);
  }
  if (filter.tags !== null && id !== undefined) {
    conditions.push(
      `+${id} IN (SELECT st.story_id FROM story_tags st WHERE st.tag_id IN (SELECT value FROM json_each(@tags))
        GROUP BY st.story_id HAVING count(*) = @tagCount)`,
    );
  } else if (filter.tags !== null) {
    conditions.push(
      `+${seq} IN (SELECT i.seq FROM story_tags st JOIN stories i ON i.id = st.story_id
        WHERE st.tag_id IN (SELECT value FROM json_each(@tags)) GROUP BY i.seq HAVING count(*) = @tagCount)`,
    );
  }
  conditions.push(...readerSets(filter, seq));
  return conditions;
}

function orderBy(sortBy: StorySearchSortKey, direction: SortDirection, match: string | null): string {
  if (sortBy === 'relevance' && match !== null) {
    // bm25: lower is better, so "best first" (desc) is ascending rank.
    const dir = direction === 'desc' ? 'ASC' : 'DESC';
    return `f.rank ${dir}, f.rowid ${dir}`;
  }
  // "*" has no relevance: it lists in the library's default order, newest first.
  const spec = SORTS[sortBy === 'relevance' ? 'createdAt' : sortBy];
  return spec.order.replace(/\?/g, direction === 'asc' ? 'ASC' : 'DESC');
}

type Driver = 'fts' | 'tag' | 'authors' | 'all';

/** The smallest set to walk row by row, or null when every candidate set is too big. */
function probeDriver({ match, candidates, filter, sortBy, probeLimit = PROBE_LIMIT }: PlanInput): Driver | null {
  const options: { driver: Driver; size: number }[] = [];
  if (match !== null) options.push({ driver: 'fts', size: candidates });
  // Relevance needs FTS5 as the outer loop; a rowid lookup per story into FTS5 is far dearer.
  if (sortBy !== 'relevance' || match === null) {
    if (filter.rarestTag !== null) options.push({ driver: 'tag', size: filter.rarestTagStories });
    if (filter.authors !== null) options.push({ driver: 'authors', size: filter.authorStories });
    if (match === null) options.push({ driver: 'all', size: candidates });
  }
  const best = options.sort((a, b) => a.size - b.size)[0];
  return best !== undefined && best.size <= probeLimit ? best.driver : null;
}

function probePlan(input: PlanInput, driver: Driver): StoryPlan {
  const { match, filter, sortBy, direction } = input;
  const sources: Record<Driver, string> = {
    fts: `stories_fts f CROSS JOIN ${ATTRS} ON s.seq = f.rowid`,
    tag: `story_tags d CROSS JOIN stories i INDEXED BY stories_id_unique ON i.id = d.story_id CROSS JOIN ${ATTRS} ON s.seq = i.seq`,
    authors: `stories d INDEXED BY stories_author_idx CROSS JOIN ${ATTRS} ON s.seq = d.seq`,
    all: ATTRS,
  };
  const driverConditions: Record<Driver, string[]> = {
    fts: ['stories_fts MATCH @match'],
    tag: ['d.tag_id = @rarestTag'],
    authors: ['d.author_id IN (SELECT value FROM json_each(@authors))'],
    all: [],
  };
  const join = sortBy === 'authorName' ? AUTHOR_JOIN : '';
  const from = `${sources[driver]} ${join} ${where([...driverConditions[driver], ...probeConditions(filter, match, driver)])}`;
  return {
    page: `SELECT s.seq AS seq, count(*) OVER () AS total FROM ${from} ORDER BY ${orderBy(sortBy, direction, match)} LIMIT @limit OFFSET @offset`,
    count: `SELECT count(*) FROM ${from}`,
    windowed: true,
  };
}

function setsPlan(input: PlanInput): StoryPlan {
  const { match, filter, sortBy, direction } = input;
  if (sortBy === 'relevance' && match !== null) {
    const from = `stories_fts f ${where(['stories_fts MATCH @match', ...setConditions(filter, 'f.rowid')])}`;
    const filtered = isFiltered(filter);
    return {
      // Unfiltered, a separate count is cheaper than counting inside the ranked query.
      page: `SELECT f.rowid AS seq${filtered ? ', count(*) OVER () AS total' : ''} FROM ${from}
        ORDER BY ${orderBy(sortBy, direction, match)} LIMIT @limit OFFSET @offset`,
      count: `SELECT count(*) FROM ${from}`,
      windowed: filtered,
    };
  }
  const spec = SORTS[sortBy === 'relevance' ? 'createdAt' : sortBy];
  const sets = setConditions(filter, 's.seq', 's.id');
  if (match !== null) sets.unshift('+s.seq IN (SELECT rowid FROM stories_fts WHERE stories_fts MATCH @match)');
  const join = sortBy === 'authorName' ? AUTHOR_JOIN : '';
  let count: string;
  if (match !== null) {
    count = `SELECT count(*) FROM stories_fts f ${where(['stories_fts MATCH @match', ...setConditions(filter, 'f.rowid')])}`;
  } else if (filter.rarestTag !== null || filter.authors !== null) {
    // Counting is a walk over the smallest filter's stories, however many that is.
    count = probePlan(input, filter.rarestTag !== null && (filter.authors === null || filter.rarestTagStories <= filter.authorStories) ? 'tag' : 'authors').count;
  } else {
    count = `SELECT count(*) FROM ${ATTRS} ${where(probeConditions(filter, null, null))}`;
  }
  return {
    page: `SELECT s.seq AS seq FROM stories s INDEXED BY ${spec.index} ${join} ${where(sets)}
      ORDER BY ${orderBy(sortBy, direction, match)} LIMIT @limit OFFSET @offset`,
    count,
    windowed: false,
  };
}

/**
 * The seqs of every story the search matches, in no order (facets count over them): FTS5's
 * matches with each filter as a set, or, without text, the filters' sets over the attrs index.
 */
export function matchingSeqs(match: string | null, filter: SearchFilter): string {
  if (match !== null) return `SELECT f.rowid AS seq FROM stories_fts f ${where(['stories_fts MATCH @match', ...setConditions(filter, 'f.rowid')])}`;
  return `SELECT s.seq AS seq FROM ${ATTRS} ${where(setConditions(filter, 's.seq', 's.id'))}`;
}

/** The cheapest plan for this search (see the file comment). */
export function planStorySearch(input: PlanInput): StoryPlan {
  const driver = probeDriver(input);
  return driver === null ? setsPlan(input) : probePlan(input, driver);
}

/** Named parameters for a plan's statements. */
export function planParams(match: string | null, filter: SearchFilter, window: { limit: number; offset: number }): Record<string, unknown> {
  const params: Record<string, unknown> = { ...window };
  if (match !== null) params.match = match;
  if (filter.minRating !== null) {
    params.minRating = filter.minRating;
    params.maxRating = filter.maxRating;
  }
  if (filter.authors !== null) params.authors = filter.authors;
  if (filter.readingStatus !== null) params.readingStatus = filter.readingStatus;
  if (filter.favourite !== null) params.favourite = filter.favourite;
  if (filter.tags !== null) {
    params.tags = filter.tags;
    params.tagCount = filter.tagCount;
    params.rarestTag = filter.rarestTag;
    filter.tagIds.forEach((tagId, index) => {
      params[`tag${index}`] = tagId;
    });
  }
  return params;
}
