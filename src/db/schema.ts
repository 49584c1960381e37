/**
 * Every table of the library, in one place (docs/architecture.md, "Layout"). Migrations in
 * `drizzle/` are generated from this file by drizzle-kit; the derived-count triggers live in a
 * custom migration.
 *
 * Conventions:
 * - `id` is the public UUID; stories and authors also carry `seq`, an INTEGER PRIMARY KEY
 *   (SQLite's rowid), so the full-text index can key on a stable integer.
 * - Timestamps are ISO 8601 UTC strings with milliseconds: they sort correctly as text.
 * - `nameKey` is the full case fold of the name (src/lib/names.ts): the unique key for "unique
 *   case-insensitively" (SQLite's NOCASE only folds ASCII) of authors, series and tags.
 * - `storyCount`, `ratedStoryCount` and `ratingSum` are maintained by triggers in the same
 *   transaction as every link change, so counts and sorts by them never scan the stories table.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const authors = sqliteTable(
  'authors',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    notes: text('notes'),
    avatarImagePath: text('avatar_image_path'),
    rating: integer('rating'),
    storyCount: integer('story_count').notNull().default(0),
    ratedStoryCount: integer('rated_story_count').notNull().default(0),
    ratingSum: integer('rating_sum').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('authors_id_unique').on(t.id),
    uniqueIndex('authors_name_key_unique').on(t.nameKey),
    index('authors_created_at_idx').on(t.createdAt, t.id),
    index('authors_updated_at_idx').on(t.updatedAt, t.id),
    index('authors_rating_idx').on(t.rating, t.id),
    index('authors_story_count_idx').on(t.storyCount, t.id),
    // Must match averageStoryRating in authors/repository.ts exactly for SQLite to use it.
    index('authors_average_rating_idx').on(sql`(${t.ratingSum} * 1.0 / ${t.ratedStoryCount})`, t.id),
    index('authors_avatar_idx').on(t.avatarImagePath),
    check('authors_rating_range', sql`${t.rating} IS NULL OR ${t.rating} BETWEEN 1 AND 5`),
  ],
);

export const authorUrls = sqliteTable(
  'author_urls',
  {
    authorId: text('author_id')
      .notNull()
      .references(() => authors.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    url: text('url').notNull(),
  },
  (t) => [primaryKey({ columns: [t.authorId, t.position] })],
);

export const series = sqliteTable(
  'series',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    description: text('description'),
    storyCount: integer('story_count').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('series_name_key_unique').on(t.nameKey),
    index('series_created_at_idx').on(t.createdAt, t.id),
    index('series_story_count_idx').on(t.storyCount, t.id),
  ],
);

export const tags = sqliteTable(
  'tags',
  {
    id: text('id').primaryKey(),
    /** Stored lowercased (docs/decisions.md, "Shapes and values"): the display name. */
    name: text('name').notNull(),
    /**
     * The full case fold of the name (src/lib/names.ts, `nameKey`): what makes a tag unique and
     * finds it. The default only lets migration 0008 add the column to a table with rows; the
     * code always sets it.
     */
    nameKey: text('name_key').notNull().default(''),
    storyCount: integer('story_count').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /**
     * What the tag says of a work at its source (docs/decisions.md, "Tag kinds"): `fandom`,
     * `relationship`, `character`, `warning`, `category`, `rating` or `freeform`; null for the
     * reader's own tags. A name is one tag whatever its kind: the first kind given sticks.
     */
    kind: text('kind', { enum: ['fandom', 'relationship', 'character', 'warning', 'category', 'rating', 'freeform'] }),
  },
  (t) => [
    index('tags_kind_idx').on(t.kind, t.storyCount),
    check(
      'tags_kind',
      sql`${t.kind} IS NULL OR ${t.kind} IN ('fandom', 'relationship', 'character', 'warning', 'category', 'rating', 'freeform')`,
    ),
    // The fold key is unique, so the name is too (the same name folds to the same key).
    uniqueIndex('tags_name_key_unique').on(t.nameKey),
    index('tags_created_at_idx').on(t.createdAt, t.id),
    index('tags_story_count_idx').on(t.storyCount, t.name),
  ],
);

export const stories = sqliteTable(
  'stories',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    title: text('title').notNull(),
    summary: text('summary'),
    description: text('description'),
    contentHtml: text('content_html'),
    contentPlain: text('content_plain'),
    sourceUrl: text('source_url'),
    coverPath: text('cover_path'),
    wordCount: integer('word_count').notNull().default(0),
    rating: integer('rating'),
    volume: integer('volume'),
    authorId: text('author_id').references(() => authors.id, { onDelete: 'set null' }),
    seriesId: text('series_id').references(() => series.id, { onDelete: 'set null' }),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /**
     * How many rows of `story_chapters` the story has (kept by the chapter writes, in their
     * transaction): lists and OPDS show it without touching the chapters. `content_html`,
     * `content_plain` and `word_count` above are the whole work assembled from its chapters
     * (docs/decisions.md, "Chapters").
     */
    chapterCount: integer('chapter_count').notNull().default(1),
    /** The source's completion: `complete`, `in-progress` or null (unknown). */
    status: text('status', { enum: ['complete', 'in-progress'] }),
    /** When the work was first published at its source (ISO 8601; a date alone is midnight UTC). */
    publishedAt: text('published_at'),
    /** The source's own last update of the work. */
    sourceUpdatedAt: text('source_updated_at'),
    /** BCP 47 language tag (`en`, `pt-BR`), or null for unknown (the EPUB and OPDS then say `en`). */
    language: text('language'),
    /** When chapters were last added to the story after it was created (refresh, re-import, append). */
    chaptersAddedAt: text('chapters_added_at'),
    /** The reader's own state of the story (docs/decisions.md, "Reading status"). */
    readingStatus: text('reading_status', { enum: ['want-to-read', 'reading', 'on-hold', 'finished', 'abandoned'] }),
    finishedAt: text('finished_at'),
    readCount: integer('read_count').notNull().default(0),
    favourite: integer('favourite', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    uniqueIndex('stories_id_unique').on(t.id),
    index('stories_reading_status_idx').on(t.readingStatus, t.createdAt, t.id),
    index('stories_favourite_idx').on(t.favourite, t.createdAt, t.id),
    index('stories_chapters_added_idx').on(t.chaptersAddedAt),
    index('stories_created_at_idx').on(t.createdAt, t.id),
    index('stories_updated_at_idx').on(t.updatedAt, t.id),
    index('stories_title_idx').on(sql`${t.title} COLLATE NOCASE`, t.id),
    index('stories_rating_idx').on(t.rating, t.createdAt, t.id),
    index('stories_rating_id_idx').on(t.rating, t.id),
    index('stories_word_count_idx').on(t.wordCount, t.id),
    index('stories_volume_idx').on(t.volume, t.id),
    index('stories_author_idx').on(t.authorId, t.createdAt, t.id),
    index('stories_series_idx').on(t.seriesId, t.volume, t.createdAt),
    index('stories_series_id_idx').on(t.seriesId, t.id),
    index('stories_cover_idx').on(t.coverPath),
    index('stories_source_url_idx').on(t.sourceUrl),
    // The reader's story head (src/stories/repository.ts findStoryHead) without walking the text's overflow pages.
    index('stories_head_idx').on(t.id, t.title, t.authorId, t.seriesId, t.volume, t.createdAt),
    check('stories_rating_range', sql`${t.rating} IS NULL OR ${t.rating} BETWEEN 1 AND 5`),
    check('stories_volume_range', sql`${t.volume} IS NULL OR ${t.volume} >= 0`),
    check('stories_status', sql`${t.status} IS NULL OR ${t.status} IN ('complete', 'in-progress')`),
    check(
      'stories_reading_status',
      sql`${t.readingStatus} IS NULL OR ${t.readingStatus} IN ('want-to-read', 'reading', 'on-hold', 'finished', 'abandoned')`,
    ),
    check('stories_chapter_count', sql`${t.chapterCount} >= 1`),
  ],
);

/**
 * A story's chapters in reading order (docs/decisions.md, "Chapters"): the text's owner. Every
 * story has at least one. `position` is the 1-based index the API calls `index`; removing a
 * chapter renumbers the ones after it, in the same transaction.
 */
export const storyChapters = sqliteTable(
  'story_chapters',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    storyId: text('story_id')
      .notNull()
      .references(() => stories.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    /** May be empty (a one-chapter story's only chapter usually is). */
    title: text('title').notNull().default(''),
    contentHtml: text('content_html').notNull(),
    contentPlain: text('content_plain').notNull(),
    wordCount: integer('word_count').notNull().default(0),
    sourceUrl: text('source_url'),
    /** The source's own identity of the chapter (AO3's chapter id), what a refresh matches on. */
    sourceKey: text('source_key'),
    /** Set when a refresh no longer found the chapter at its source; the text is kept. */
    sourceGoneAt: text('source_gone_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('story_chapters_position_unique').on(t.storyId, t.position),
    index('story_chapters_created_idx').on(t.storyId, t.createdAt),
    // The contents (listChapterMeta) from the index alone: in the row, every column after the title sits behind the chapter's text.
    index('story_chapters_meta_idx').on(t.storyId, t.position, t.title, t.wordCount, t.sourceUrl, t.sourceGoneAt, t.createdAt, t.updatedAt),
    check('story_chapters_position_range', sql`${t.position} >= 1`),
  ],
);

/**
 * The authors of a story after its first (docs/decisions.md, "Chapters"): `stories.author_id` is
 * `authors[0]`, as the API's `authorId`; these are `authors[1..]` in `position` order (from 2).
 * An author's `storyCount` counts both (triggers, drizzle/0016).
 */
export const storyCoauthors = sqliteTable(
  'story_coauthors',
  {
    storyId: text('story_id')
      .notNull()
      .references(() => stories.id, { onDelete: 'cascade' }),
    authorId: text('author_id')
      .notNull()
      .references(() => authors.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.storyId, t.authorId] }),
    index('story_coauthors_author_idx').on(t.authorId, t.storyId),
    uniqueIndex('story_coauthors_position_unique').on(t.storyId, t.position),
  ],
);

/**
 * Where a story follows its source (docs/decisions.md, "Sources"): one row per story imported
 * from a site we can check again. `next_check_at` is the scheduler's one index walk: due rows
 * only, so its cost does not grow with the library.
 */
export const storySources = sqliteTable(
  'story_sources',
  {
    storyId: text('story_id')
      .primaryKey()
      .references(() => stories.id, { onDelete: 'cascade' }),
    /** `otwarchive`, `fanficfare` or `file` (a FanFicFare file imported by hand: matched, not fetched). */
    engine: text('engine').notNull(),
    /** The work's canonical address. */
    url: text('url').notNull(),
    /** The source's identity of the work (FanFicFare's uid, `otwarchive:<host>:<work id>`). */
    uid: text('uid'),
    /** The host requests go to: politeness is per site. */
    site: text('site').notNull(),
    /** False when the user stopped following, or the engine cannot fetch (files). */
    follow: integer('follow', { mode: 'boolean' }).notNull().default(true),
    nextCheckAt: text('next_check_at'),
    lastCheckedAt: text('last_checked_at'),
    failures: integer('failures').notNull().default(0),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('story_sources_due_idx').on(t.nextCheckAt),
    index('story_sources_uid_idx').on(t.uid),
    index('story_sources_url_idx').on(t.url),
  ],
);

/** Each update a story received from its source (`GET /api/stories/{id}/updates`, the Atom feed, the webhook). */
export const storyUpdates = sqliteTable(
  'story_updates',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    storyId: text('story_id')
      .notNull()
      .references(() => stories.id, { onDelete: 'cascade' }),
    at: text('at').notNull(),
    /** `import`, `refresh`, `schedule` or `file`. */
    origin: text('origin').notNull(),
    sourceUrl: text('source_url'),
    addedChapters: integer('added_chapters').notNull().default(0),
    updatedChapters: integer('updated_chapters').notNull().default(0),
    /** Chapters whose new text was refused (empty, or under a tenth of the old): the old kept. */
    keptChapters: integer('kept_chapters').notNull().default(0),
    /** Chapters the source no longer has (marked, kept). */
    goneChapters: integer('gone_chapters').notNull().default(0),
    /** JSON: `{added: [titles], updated: [titles], kept: [titles], gone: [titles]}` (bounded). */
    details: text('details').notNull().default('{}'),
  },
  (t) => [index('story_updates_story_idx').on(t.storyId, t.at), index('story_updates_at_idx').on(t.at)],
);

/** Shelves (docs/decisions.md, "Shelves"): a manual list in the reader's order, or a saved search. */
export const shelves = sqliteTable(
  'shelves',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    description: text('description'),
    kind: text('kind', { enum: ['manual', 'smart'] }).notNull(),
    /** A smart shelf's saved search as JSON (the parameters of `GET /api/stories/search`); null for manual. */
    query: text('query'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('shelves_name_key_unique').on(t.nameKey),
    index('shelves_created_at_idx').on(t.createdAt, t.id),
    check('shelves_kind', sql`${t.kind} IN ('manual', 'smart')`),
  ],
);

/** The stories of a manual shelf, in the reader's order. */
export const shelfStories = sqliteTable(
  'shelf_stories',
  {
    shelfId: text('shelf_id')
      .notNull()
      .references(() => shelves.id, { onDelete: 'cascade' }),
    storyId: text('story_id')
      .notNull()
      .references(() => stories.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.shelfId, t.storyId] }),
    index('shelf_stories_order_idx').on(t.shelfId, t.position),
    index('shelf_stories_story_idx').on(t.storyId),
  ],
);

export const storyTags = sqliteTable(
  'story_tags',
  {
    storyId: text('story_id')
      .notNull()
      .references(() => stories.id, { onDelete: 'cascade' }),
    tagId: text('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    /**
     * The story's `created_at`, kept by triggers (drizzle/0013): set when the link is made and
     * when the story's changes. With the index below, a tag's stories in the default order
     * (newest first) are one walk of that tag's part of the index, instead of every story's
     * membership tested while walking the whole library's order (src/stories/page-queries.ts).
     */
    storyCreatedAt: text('story_created_at'),
  },
  (t) => [
    primaryKey({ columns: [t.storyId, t.tagId] }),
    index('story_tags_tag_idx').on(t.tagId, t.storyId),
    index('story_tags_tag_created_idx').on(t.tagId, t.storyCreatedAt, t.storyId),
  ],
);

/**
 * Where the reader stopped in each story (docs/decisions.md, "Reading progress"): one row per
 * started story, no user column (the library has one password, so one reader). Not a story
 * column: reading is not editing, so a saved position never changes the story's `updatedAt`
 * (a save may move its reading status, docs/decisions.md, "Reading status"). Goes with its story (cascade).
 */
export const readingProgress = sqliteTable(
  'reading_progress',
  {
    storyId: text('story_id')
      .primaryKey()
      .references(() => stories.id, { onDelete: 'cascade' }),
    /** The fraction of the story read, 0 at the top to 1 at the end. */
    progress: real('progress').notNull(),
    /** The client's opaque locator (a paragraph index, say), at most 1,000 characters. */
    position: text('position'),
    updatedAt: text('updated_at').notNull(),
    /** The 1-based chapter the position is in; null for rows saved before chapters. */
    chapter: integer('chapter'),
    /**
     * The story's `chapters_added_at`, copied by triggers (drizzle/0018) so that the stories with
     * chapters newer than the reader's last save are one walk of the partial index below
     * (docs/decisions.md, "Sources › Telling the reader").
     */
    chaptersAddedAt: text('chapters_added_at'),
  },
  (t) => [
    index('reading_progress_updated_at_idx').on(t.updatedAt, t.storyId),
    index('reading_progress_unread_idx').on(t.chaptersAddedAt).where(sql`${t.chaptersAddedAt} > ${t.updatedAt}`),
    check('reading_progress_range', sql`${t.progress} >= 0 AND ${t.progress} <= 1`),
    check('reading_progress_position_length', sql`${t.position} IS NULL OR length(${t.position}) <= 1000`),
  ],
);

/** Logged-out tokens, kept until they would have expired anyway (docs/decisions.md, "Authentication"). */
export const revokedTokens = sqliteTable(
  'revoked_tokens',
  {
    jti: text('jti').primaryKey(),
    /** Unix seconds: the token's own `exp`. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('revoked_tokens_expires_idx').on(t.expiresAt)],
);

/**
 * The Typesense outbox (docs/decisions.md, "Search"; docs/typesense.md): one row per story or
 * author whose search document changed and is not yet confirmed by Typesense. Written only when
 * Typesense is configured, in the same transaction as the change (src/search/typesense/outbox.ts); a row
 * names the entity, never a snapshot of it, because the worker reads the current row when it
 * delivers. `version` grows each time the entity changes again, so a delivery only removes the
 * row it actually carried. Times are epoch milliseconds (they are compared and added to, never
 * shown).
 */
export const searchOutbox = sqliteTable(
  'search_outbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    kind: text('kind', { enum: ['story', 'author'] }).notNull(),
    entityId: text('entity_id').notNull(),
    version: integer('version').notNull().default(1),
    /** When the oldest undelivered change of this entity was made. */
    enqueuedAt: integer('enqueued_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    lastError: text('last_error'),
  },
  (t) => [
    uniqueIndex('search_outbox_entity_unique').on(t.kind, t.entityId),
    index('search_outbox_next_attempt_idx').on(t.nextAttemptAt),
    index('search_outbox_lag_idx').on(t.attempts, t.enqueuedAt),
    check('search_outbox_kind', sql`${t.kind} IN ('story', 'author')`),
  ],
);

/**
 * Named device tokens (docs/decisions.md, "Device tokens"): what an e-reader or app signs in with
 * when it cannot keep a login cookie (OPDS, KOReader, scripts). The secret is shown once; only
 * its SHA-256 is kept, plus the SHA-256 of its MD5 (KOReader sends md5(password) as its key).
 * Revoking deletes the row, so a revoked token stops at its next request.
 */
export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** The first characters of the secret, shown in lists so a person can tell tokens apart. */
    prefix: text('prefix').notNull(),
    /** Hex SHA-256 of the secret. */
    hash: text('hash').notNull(),
    /** Hex SHA-256 of the hex MD5 of the secret (KOReader's `x-auth-key`). */
    kosyncKeyHash: text('kosync_key_hash').notNull(),
    /** Comma-separated scopes: `read`, `progress`, `write`. */
    scopes: text('scopes').notNull(),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at'),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_unique').on(t.hash),
    uniqueIndex('api_tokens_kosync_key_hash_unique').on(t.kosyncKeyHash),
    index('api_tokens_created_at_idx').on(t.createdAt, t.id),
  ],
);

/**
 * Every EPUB the library has handed out, by KOReader's partial MD5 of its bytes, and the names it
 * may be saved under, by KOReader's MD5 of the file name (docs/decisions.md, "KOReader sync"):
 * the bytes depend only on the book's contents, so a hash names one version of one book, and
 * `spine` says which story each of its content documents holds. Kept while the story, series or
 * tag exists (triggers delete them with it) or the shelf does (its delete does: `kind` is a text
 * column without a CHECK, so 'shelf' needed no migration), bounded per book.
 */
export const epubRenditions = sqliteTable(
  'epub_renditions',
  {
    hash: text('hash').primaryKey(),
    kind: text('kind', { enum: ['story', 'series', 'tag', 'search', 'shelf'] }).notNull(),
    /** The story, series, tag or shelf id, or the search query. */
    entityKey: text('entity_key').notNull(),
    /**
     * Rows made before `texts`: the `updatedAt` (or, for a book of several stories, a digest of
     * theirs) the file was made from. Newer rows repeat `contentDigest` here.
     */
    entityVersion: text('entity_version').notNull(),
    /**
     * JSON array, one element per spine item: null (title page), a story id (a book made before
     * chapters: the story's whole text), or the page record of src/epub/documents.ts `SpineDocument`.
     */
    spine: text('spine').notNull(),
    createdAt: text('created_at').notNull(),
    /** SHA-256 of everything in the book but its modified stamp: equal contents, equal digest. */
    contentDigest: text('content_digest'),
    /** The book's `dcterms:modified`: when these contents were first made into a book. */
    modified: text('modified'),
    /** JSON array, one per story of the spine in order: a digest of the story's text as the book wrote it. */
    texts: text('texts'),
    /** True for a row keyed by the MD5 of a file name the book is offered under, not of its bytes. */
    byName: integer('by_name', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    index('epub_renditions_entity_idx').on(t.kind, t.entityKey, t.createdAt),
    index('epub_renditions_created_at_idx').on(t.createdAt),
  ],
);

/**
 * KOReader positions for documents that are not a Storyshelf EPUB (docs/decisions.md,
 * "KOReader sync"): the library is then a plain sync server for the reader's other books too.
 */
export const kosyncDocuments = sqliteTable(
  'kosync_documents',
  {
    document: text('document').primaryKey(),
    progress: text('progress').notNull(),
    percentage: real('percentage').notNull(),
    device: text('device').notNull(),
    deviceId: text('device_id').notNull(),
    /** Unix seconds, as KOReader compares it. */
    timestamp: integer('timestamp').notNull(),
  },
  (t) => [index('kosync_documents_timestamp_idx').on(t.timestamp)],
);

/**
 * Background jobs (docs/decisions.md, "Jobs"): imports and restores run one at a time off the
 * request, survive a restart, and report progress. `params` and `state` are JSON owned by the
 * job's kind; `errors` is a JSON array of `{file, error}`, bounded by the runner.
 */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    status: text('status', { enum: ['queued', 'running', 'done', 'failed', 'cancelled'] }).notNull(),
    total: integer('total').notNull().default(0),
    done: integer('done').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    errors: text('errors').notNull().default('[]'),
    params: text('params').notNull().default('{}'),
    state: text('state').notNull().default('{}'),
    /** JSON: what the job came to, for the kinds that say (a FanFicFare refresh's counts); null otherwise. */
    result: text('result'),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
  },
  (t) => [
    index('jobs_status_idx').on(t.status, t.createdAt),
    index('jobs_created_at_idx').on(t.createdAt, t.id),
    check('jobs_status', sql`${t.status} IN ('queued', 'running', 'done', 'failed', 'cancelled')`),
  ],
);

/**
 * The words of the library that a misspelt query word may be corrected to (docs/decisions.md,
 * "Typo tolerance"): a materialized copy of the full-text vocabulary with each word's document
 * count, looked up by exact key for every one-edit variant of the query word. Its migration
 * makes it WITHOUT ROWID by hand (drizzle cannot say so): the key is the row, half the size.
 */
export const searchTerms = sqliteTable(
  'search_terms',
  {
    term: text('term').primaryKey(),
    docs: integer('docs').notNull(),
  },
);

export type AuthorRow = typeof authors.$inferSelect;
export type SeriesRow = typeof series.$inferSelect;
export type TagRow = typeof tags.$inferSelect;
export type StoryRow = typeof stories.$inferSelect;
export type ReadingProgressRow = typeof readingProgress.$inferSelect;
export type StoryChapterRow = typeof storyChapters.$inferSelect;
export type StorySourceRow = typeof storySources.$inferSelect;
export type StoryUpdateRow = typeof storyUpdates.$inferSelect;
export type ShelfRow = typeof shelves.$inferSelect;
