import type { ReadingProgressRow } from '../db/schema.js';
import type { ReadingProgressDto } from '../schemas/reading-progress.js';
import type { ReadingStatus } from '../schemas/reading-status.js';
import type { StoryDto } from '../schemas/story.js';

/**
 * Story `s`'s authors in order as a JSON array of `{id, name}`: the first author (`author_id`),
 * then its co-authors by position (docs/decisions.md, "Chapters").
 */
export const STORY_AUTHORS_SQL = `json((
    SELECT json_group_array(json_object('id', named.id, 'name', named.name) ORDER BY named.position)
    FROM (
      SELECT fa.id, fa.name, 1 AS position FROM authors fa WHERE fa.id = s.author_id
      UNION ALL
      SELECT ca.id, ca.name, c.position FROM story_coauthors c JOIN authors ca ON ca.id = c.author_id WHERE c.story_id = s.id
    ) named
  ))`;

/** {@link STORY_JSON_SQL} with `texts` (the whole work's columns, or nothing) in its place. */
const storyJsonSql = (texts: string): string => `json_object(
  'id', s.id,
  'title', s.title,
  'summary', s.summary,
  'description', s.description,${texts}
  'sourceUrl', s.source_url,
  'coverPath', s.cover_path,
  'wordCount', s.word_count,
  'rating', s.rating,
  'volume', s.volume,
  'authorId', s.author_id,
  'authorName', a.name,
  'seriesId', s.series_id,
  'seriesName', se.name,
  'tags', json((
    SELECT json_group_array(json_object(
      'id', t.id, 'name', t.name, 'storyCount', t.story_count, 'createdAt', t.created_at, 'updatedAt', t.updated_at, 'kind', t.kind
    ) ORDER BY t.name, t.id)
    FROM story_tags st JOIN tags t ON t.id = st.tag_id
    WHERE st.story_id = s.id
  )),
  'createdAt', s.created_at,
  'updatedAt', s.updated_at,
  'chapterCount', s.chapter_count,
  'status', s.status,
  'publishedAt', s.published_at,
  'sourceUpdatedAt', s.source_updated_at,
  'language', s.language,
  'authors', ${STORY_AUTHORS_SQL},
  'chaptersAddedAt', s.chapters_added_at,
  'readingStatus', s.reading_status,
  'finishedAt', s.finished_at,
  'readCount', s.read_count,
  'favourite', json(CASE WHEN s.favourite THEN 'true' ELSE 'false' END)
)`;

/**
 * A story as the API shows it (docs/api.md, "Fields › Story"; the `StoryDto` schema): every field
 * present, unset ones `null`, `tags` the story's tags sorted by name (then id) as `TagDto`s.
 *
 * Rendered by SQLite itself as JSON text, from a row `s` of stories joined with its author `a`
 * and series `se`. A story is ~30 KB of HTML and plain text: read as JavaScript strings, escaped
 * by the serializer and encoded again, it cost ~0.3 ms of a story request and ~5 ms of a
 * 20-story list page at 100k stories; SQLite's `json_object` escapes it in C, and the bytes go
 * to the socket as they are (docs/performance.md). test/routes/stories-json.test.ts holds this
 * SQL to the `StoryDto` schema.
 */
export const STORY_JSON_SQL = storyJsonSql(`
  'contentHtml', s.content_html,
  'contentPlain', s.content_plain,`);

/** A story without the whole work's text (no `contentHtml`, `contentPlain`): what a page that shows none of it reads. */
export type StoryWithoutText = Omit<StoryDto, 'contentHtml' | 'contentPlain'>;

/**
 * {@link STORY_JSON_SQL} without `contentHtml` and `contentPlain`: the story page shows none of
 * the text, which for a long work is megabytes read and parsed twice (HTML and plain) per view.
 */
export const STORY_WITHOUT_TEXT_JSON_SQL = storyJsonSql('');

/** The joins {@link STORY_JSON_SQL} reads from, after `FROM stories s`. */
export const STORY_JSON_JOINS = 'LEFT JOIN authors a ON a.id = s.author_id LEFT JOIN series se ON se.id = s.series_id';

/**
 * A story's reading progress as the API shows it (`ReadingProgressDto`, docs/decisions.md,
 * "Reading progress"): without a saved row, progress 0 and `position`, `chapter` and `updatedAt` null.
 */
export function presentProgress(storyId: string, row: Omit<ReadingProgressRow, 'chaptersAddedAt'> | undefined): ReadingProgressDto {
  if (row === undefined) return { storyId, progress: 0, position: null, chapter: null, updatedAt: null };
  return { storyId, progress: row.progress, position: row.position, chapter: row.chapter, updatedAt: row.updatedAt };
}

/**
 * The names of story `s`'s tags as a JSON array, sorted by name (then id), as every story shape
 * that lists tag names has them: the list cards here, the OPDS entries (src/opds/repository.ts)
 * and the library archive (src/archive/export.ts).
 */
export const STORY_TAG_NAMES_SQL = `(
    SELECT json_group_array(t.name ORDER BY t.name, t.id)
    FROM story_tags st JOIN tags t ON t.id = st.tag_id
    WHERE st.story_id = s.id
  )`;

/**
 * A story as a list card shows it: what {@link STORY_JSON_SQL} has minus the texts (summary,
 * description, contentHtml, contentPlain, sourceUrl), so a 20-card page reads a few KB instead of
 * ~0.6 MB of story bodies. Tags are their names only (strings), sorted as the DTO sorts them.
 */
export const STORY_CARD_JSON_SQL = `json_object(
  'id', s.id,
  'title', s.title,
  'coverPath', s.cover_path,
  'wordCount', s.word_count,
  'rating', s.rating,
  'volume', s.volume,
  'authorId', s.author_id,
  'authorName', a.name,
  'seriesId', s.series_id,
  'seriesName', se.name,
  'tags', json(${STORY_TAG_NAMES_SQL}),
  'createdAt', s.created_at,
  'readingStatus', s.reading_status,
  'favourite', json(CASE WHEN s.favourite THEN 'true' ELSE 'false' END),
  'chapterCount', s.chapter_count
)`;

/** A story card: {@link STORY_CARD_JSON_SQL} parsed. */
export interface StoryCard {
  id: string;
  title: string;
  coverPath: string | null;
  wordCount: number;
  rating: number | null;
  volume: number | null;
  authorId: string | null;
  authorName: string | null;
  seriesId: string | null;
  seriesName: string | null;
  tags: string[];
  createdAt: string;
  /** The reader's status and mark, shown as badges (docs/decisions.md, "Reading status"). */
  readingStatus: ReadingStatus | null;
  favourite: boolean;
  chapterCount: number;
}
