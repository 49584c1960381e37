-- The embedded search engine (decisions.md, "Search"): FTS5 indexes for stories and authors, a
-- word-prefix table for suggestions, and a queue of what changed. Triggers only *mark* changed
-- stories/authors/series/tags in `search_dirty`; `syncSearchDocuments` (src/search/sync.ts)
-- rebuilds each marked document once, in the same transaction, just before it commits.
--
-- The FTS tables are contentless (content='') with contentless_delete=1: they keep only the
-- inverted index (no second copy of ~10 KB of body text per story) and still allow a plain
-- DELETE by rowid, so a document can be rebuilt without knowing its old text. Snippets are
-- built from the stories table for the rows of one result page (src/search/snippet.ts).
--
-- Story columns, highest bm25 weight first: title, names (author, series, tag names),
-- meta (summary, description), body (contentPlain). rowid = stories.seq.
-- prefix='3' keeps a ready-made doclist for every 3-character prefix, so a short last word
-- ("sto" -> story, stone, ...) reads one list instead of merging hundreds: 0.55-0.8 s -> ~60 ms
-- at 100k stories, for an index ~65% larger (docs/performance.md). detail=column would be
-- smaller still, but bm25 cannot rank a contentless detail=column table (it scores 0).
CREATE VIRTUAL TABLE `stories_fts` USING fts5(
  `title`, `names`, `meta`, `body`,
  content='', contentless_delete=1, prefix='3',
  tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
INSERT INTO `stories_fts` (`stories_fts`, `rank`) VALUES ('rank', 'bm25(10.0, 5.0, 2.0, 1.0)');
--> statement-breakpoint
-- Authors: rowid = authors.seq; urls are tokenized like text (host and path words).
CREATE VIRTUAL TABLE `authors_fts` USING fts5(
  `name`, `notes`, `urls`,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
INSERT INTO `authors_fts` (`authors_fts`, `rank`) VALUES ('rank', 'bm25(5.0, 1.0, 1.0)');
--> statement-breakpoint
-- Search filters and sorts read a story's attributes by seq without touching its row: a row is
-- ~27 KB and rating, author, dates and word count sit behind a chain of overflow pages, which
-- made a filtered search cost 60+ ms at 100k stories. This index answers "seq -> attributes"
-- from ~170 bytes (17 MB at 100k stories).
CREATE INDEX `stories_search_attrs_idx` ON `stories` (`seq`, `rating`, `author_id`, `id`, `created_at`, `updated_at`, `word_count`, `title`);
--> statement-breakpoint
-- One row per suggestion source: a story title (ref = stories.seq), an author (authors.seq),
-- a series or a tag (their id). `folded` is the case- and diacritic-folded text (deduplication),
-- `weight` how many stories it leads to (titles: 1).
CREATE TABLE `search_suggestions` (
  `id` integer PRIMARY KEY,
  `kind` text NOT NULL,
  `ref` NOT NULL,
  `text` text NOT NULL,
  `folded` text NOT NULL,
  `weight` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_suggestions_source_unique` ON `search_suggestions` (`kind`, `ref`);
--> statement-breakpoint
-- Every prefix (1 to 10 characters) of every folded word of a suggestion, ordered the way
-- suggestions are ranked, so "best first, at most limit" is one walk down this primary key.
CREATE TABLE `search_suggestion_keys` (
  `key` text NOT NULL,
  `weight` integer NOT NULL,
  `tie` integer NOT NULL,
  `suggestion_id` integer NOT NULL,
  PRIMARY KEY (`key`, `weight` DESC, `tie`, `suggestion_id`)
) WITHOUT ROWID;
--> statement-breakpoint
-- What changed since the last sync: kind 'story' / 'author' (ref = seq), 'series' / 'tag'
-- (ref = id; their suggestions only, their stories are marked by their own triggers). `uid` is
-- the public id, kept so a listener (the Typesense outbox) can name a row that is gone.
CREATE TABLE `search_dirty` (
  `kind` text NOT NULL,
  `ref` NOT NULL,
  `uid` text NOT NULL,
  PRIMARY KEY (`kind`, `ref`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER `stories_search_after_insert` AFTER INSERT ON `stories` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('story', NEW.`seq`, NEW.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `stories_search_after_update` AFTER UPDATE OF `title`, `summary`, `description`, `content_plain`, `author_id`, `series_id` ON `stories`
WHEN OLD.`title` IS NOT NEW.`title` OR OLD.`summary` IS NOT NEW.`summary` OR OLD.`description` IS NOT NEW.`description`
  OR OLD.`content_plain` IS NOT NEW.`content_plain` OR OLD.`author_id` IS NOT NEW.`author_id` OR OLD.`series_id` IS NOT NEW.`series_id` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('story', NEW.`seq`, NEW.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `stories_search_after_delete` AFTER DELETE ON `stories` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('story', OLD.`seq`, OLD.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `story_tags_search_after_insert` AFTER INSERT ON `story_tags` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'story', `seq`, `id` FROM `stories` WHERE `id` = NEW.`story_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `story_tags_search_after_delete` AFTER DELETE ON `story_tags` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'story', `seq`, `id` FROM `stories` WHERE `id` = OLD.`story_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `authors_search_after_insert` AFTER INSERT ON `authors` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('author', NEW.`seq`, NEW.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `authors_search_after_update` AFTER UPDATE OF `name`, `notes`, `story_count` ON `authors`
WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`notes` IS NOT NEW.`notes` OR OLD.`story_count` IS NOT NEW.`story_count` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('author', NEW.`seq`, NEW.`id`);
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
    SELECT 'story', `seq`, `id` FROM `stories` WHERE `author_id` = NEW.`id` AND OLD.`name` IS NOT NEW.`name`;
END;
--> statement-breakpoint
CREATE TRIGGER `authors_search_after_delete` AFTER DELETE ON `authors` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('author', OLD.`seq`, OLD.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `author_urls_search_after_insert` AFTER INSERT ON `author_urls` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'author', `seq`, `id` FROM `authors` WHERE `id` = NEW.`author_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `author_urls_search_after_update` AFTER UPDATE ON `author_urls` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'author', `seq`, `id` FROM `authors` WHERE `id` IN (OLD.`author_id`, NEW.`author_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `author_urls_search_after_delete` AFTER DELETE ON `author_urls` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'author', `seq`, `id` FROM `authors` WHERE `id` = OLD.`author_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `series_search_after_insert` AFTER INSERT ON `series` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('series', NEW.`id`, NEW.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `series_search_after_update` AFTER UPDATE OF `name`, `story_count` ON `series`
WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`story_count` IS NOT NEW.`story_count` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('series', NEW.`id`, NEW.`id`);
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
    SELECT 'story', `seq`, `id` FROM `stories` WHERE `series_id` = NEW.`id` AND OLD.`name` IS NOT NEW.`name`;
END;
--> statement-breakpoint
CREATE TRIGGER `series_search_after_delete` AFTER DELETE ON `series` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('series', OLD.`id`, OLD.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `tags_search_after_insert` AFTER INSERT ON `tags` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('tag', NEW.`id`, NEW.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `tags_search_after_update` AFTER UPDATE OF `name`, `story_count` ON `tags`
WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`story_count` IS NOT NEW.`story_count` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('tag', NEW.`id`, NEW.`id`);
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
    SELECT 'story', s.`seq`, s.`id` FROM `story_tags` st JOIN `stories` s ON s.`id` = st.`story_id`
    WHERE st.`tag_id` = NEW.`id` AND OLD.`name` IS NOT NEW.`name`;
END;
--> statement-breakpoint
CREATE TRIGGER `tags_search_after_delete` AFTER DELETE ON `tags` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) VALUES ('tag', OLD.`id`, OLD.`id`);
END;
--> statement-breakpoint
-- Whatever the library already holds is indexed by the first sync after this migration
-- (the search plugin runs one at startup).
INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'story', `seq`, `id` FROM `stories`;
--> statement-breakpoint
INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'author', `seq`, `id` FROM `authors`;
--> statement-breakpoint
INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'series', `id`, `id` FROM `series`;
--> statement-breakpoint
INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'tag', `id`, `id` FROM `tags`;
