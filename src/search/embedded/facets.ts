/**
 * Search facets on the embedded engine (docs/decisions.md, "Search facets"): the authors, tags
 * (all, and per kind), ratings, reading statuses and favourites of every story the search
 * matches, not only the page's, the 20 most frequent authors and tags (and tags of each kind).
 *
 * One statement: the matching seqs (./story-plans.ts, `matchingSeqs`) are turned once into
 * (id, author, rating) from the attrs index, materialized, and grouped three ways; tag links come
 * from `story_tags`' primary key, counted per tag before the tags' names and kinds are read, reading statuses and favourites from their own indexes (walked
 * over the stories that have one, each looked up in the materialized set). Without text or filters the answer is the whole library's, read
 * from the trigger-maintained story counts instead (each kind's from `tags_kind_idx`).
 *
 * The cost grows with the matches (each one an attrs-index seek and a few `story_tags` seeks:
 * ~0.45 s for 20,000 matches on a loaded 2-core machine), so above {@link FACET_SAMPLE_MAX}
 * matches only every k-th story (by seq, evenly spread through the library's history) is counted
 * and the counts are multiplied by k, as Typesense's `facet_sample_percent` does; the facets then
 * say `approximate: true`.
 */
import type Database from 'better-sqlite3';
import { defineStatements, defineStatementShapes } from '../../db/statements.js';
import type { ReadingStatus } from '../../schemas/reading-status.js';
import type { SearchFacets } from '../../schemas/search.js';
import type { TagKind } from '../../schemas/tag.js';
import { FACET_VALUES_MAX, TAG_KINDS } from '../../schemas/values.js';
import { isTagKind, kindFacets, sortReadingStatuses } from '../present.js';
import { isFiltered, matchingSeqs, planParams, type SearchFilter } from './story-plans.js';

interface FacetRow {
  /** A tag kind's rows are `tag:` and the kind (`tag:fandom`, …): `rating` is the reader's stars. */
  kind: 'author' | 'tag' | 'rating' | 'status' | 'favourite' | `tag:${TagKind}`;
  value: string | number;
  count: number;
}

/**
 * Tag links are counted once per tag (`tc`, story_tags' primary key) and only then joined to the
 * tags' names and kinds, one lookup per distinct tag (`tn`); the tags facet and the kinds' (every
 * kind's top values in one pass, numbered per kind) read that small set.
 */
const GROUPS = `,
  tn AS MATERIALIZED (
    SELECT t.name AS name, t.kind AS kind, tc.n AS n FROM (
      SELECT st.tag_id AS tagId, count(*) AS n FROM m CROSS JOIN story_tags st ON st.story_id = m.id GROUP BY st.tag_id) tc
    CROSS JOIN tags t ON t.id = tc.tagId)
  SELECT 'author' AS kind, name AS value, n AS count FROM (
    SELECT a.name AS name, count(*) AS n FROM m CROSS JOIN authors a ON a.id = m.authorId GROUP BY m.authorId ORDER BY n DESC, a.name LIMIT ${FACET_VALUES_MAX})
  UNION ALL
  SELECT 'tag', name, n FROM (SELECT name, n FROM tn ORDER BY n DESC, name LIMIT ${FACET_VALUES_MAX})
  UNION ALL
  SELECT 'tag:' || kind, name, n FROM (
    SELECT kind, name, n, row_number() OVER (PARTITION BY kind ORDER BY n DESC, name) AS place FROM tn WHERE kind IS NOT NULL)
  WHERE place <= ${FACET_VALUES_MAX}
  UNION ALL
  SELECT 'rating', rating, n FROM (SELECT rating, count(*) AS n FROM m WHERE rating IS NOT NULL GROUP BY rating)
  UNION ALL
  SELECT 'status', reading_status, count(*) FROM stories INDEXED BY stories_reading_status_idx
    WHERE reading_status IS NOT NULL AND seq IN (SELECT seq FROM m) GROUP BY reading_status
  UNION ALL
  SELECT 'favourite', 1, count(*) FROM stories INDEXED BY stories_favourite_idx WHERE favourite = 1 AND seq IN (SELECT seq FROM m)`;

/** Most matching stories counted one by one; above, a sample of about this many. */
export const FACET_SAMPLE_MAX = 10_000;

const statementsFor = defineStatements((client: Database.Database) => ({
  library: client.prepare<[], FacetRow>(
    `SELECT 'author' AS kind, value, count FROM (
       SELECT name AS value, story_count AS count FROM authors WHERE story_count > 0 ORDER BY story_count DESC, name LIMIT ${FACET_VALUES_MAX})
     UNION ALL
     SELECT 'tag', value, count FROM (
       SELECT name AS value, story_count AS count FROM tags WHERE story_count > 0 ORDER BY story_count DESC, name LIMIT ${FACET_VALUES_MAX})
     UNION ALL
     ${TAG_KINDS.map(
       (kind) => `SELECT 'tag:${kind}', value, count FROM (
       SELECT name AS value, story_count AS count FROM tags INDEXED BY tags_kind_idx
       WHERE kind = '${kind}' AND story_count > 0 ORDER BY story_count DESC, name LIMIT ${FACET_VALUES_MAX})
     UNION ALL`,
     ).join('\n')}
     SELECT 'rating', rating, count(*) FROM stories INDEXED BY stories_rating_id_idx WHERE rating IS NOT NULL GROUP BY rating
     UNION ALL
     SELECT 'status', reading_status, count(*) FROM stories INDEXED BY stories_reading_status_idx WHERE reading_status IS NOT NULL GROUP BY reading_status
     UNION ALL
     SELECT 'favourite', 1, count(*) FROM stories INDEXED BY stories_favourite_idx WHERE favourite = 1`,
  ),
}));

/** One statement per plan shape (filters and text), few in practice; bounded like the page plans. */
const shapes = defineStatementShapes<Database.Statement>(64);

/** No facet values: the search matched nothing. */
export function emptyFacets(): SearchFacets {
  return { authors: [], tags: [], tagKinds: kindFacets(), ratings: [], readingStatuses: [], favourites: 0 };
}

function facetsOf(rows: readonly FacetRow[], step = 1): SearchFacets {
  const facets = emptyFacets();
  for (const row of rows) {
    const count = row.count * step;
    if (row.kind === 'author') facets.authors.push({ name: String(row.value), count });
    else if (row.kind === 'tag') facets.tags.push({ name: String(row.value), count });
    else if (row.kind.startsWith('tag:')) {
      const kind = row.kind.slice('tag:'.length);
      if (isTagKind(kind)) facets.tagKinds[kind].push({ name: String(row.value), count });
    }
    else if (row.kind === 'rating') facets.ratings.push({ rating: Number(row.value), count });
    else if (row.kind === 'status') facets.readingStatuses.push({ readingStatus: row.value as ReadingStatus, count });
    else facets.favourites = count;
  }
  facets.ratings.sort((a, b) => b.rating - a.rating);
  sortReadingStatuses(facets.readingStatuses);
  if (step > 1) facets.approximate = true;
  return facets;
}

/**
 * The facets of every story matching `match` (null: all) and the filter, of which there are
 * `total` (see the file comment).
 */
export function searchFacets(client: Database.Database, match: string | null, filter: SearchFilter, total: number): SearchFacets {
  if (total === 0) return emptyFacets();
  if (match === null && !isFiltered(filter)) return facetsOf(statementsFor(client).library.all());
  const sqlText = `WITH m AS MATERIALIZED (
      SELECT s.seq AS seq, s.id AS id, s.author_id AS authorId, s.rating AS rating
      FROM (${matchingSeqs(match, filter)}) x CROSS JOIN stories s INDEXED BY stories_search_attrs_idx ON s.seq = x.seq
      WHERE x.seq % @step = 0)${GROUPS}`;
  const statement = shapes(client, sqlText, () => client.prepare(sqlText));
  const step = Math.ceil(total / FACET_SAMPLE_MAX);
  return facetsOf(statement.all({ ...planParams(match, filter, { limit: 0, offset: 0 }), step }) as FacetRow[], step);
}
