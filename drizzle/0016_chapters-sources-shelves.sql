CREATE TABLE `shelf_stories` (
	`shelf_id` text NOT NULL,
	`story_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`shelf_id`, `story_id`),
	FOREIGN KEY (`shelf_id`) REFERENCES `shelves`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shelf_stories_order_idx` ON `shelf_stories` (`shelf_id`,`position`);--> statement-breakpoint
CREATE INDEX `shelf_stories_story_idx` ON `shelf_stories` (`story_id`);--> statement-breakpoint
CREATE TABLE `shelves` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`description` text,
	`kind` text NOT NULL,
	`query` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "shelves_kind" CHECK("shelves"."kind" IN ('manual', 'smart'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `shelves_name_key_unique` ON `shelves` (`name_key`);--> statement-breakpoint
CREATE INDEX `shelves_created_at_idx` ON `shelves` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `story_chapters` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`story_id` text NOT NULL,
	`position` integer NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`content_html` text NOT NULL,
	`content_plain` text NOT NULL,
	`word_count` integer DEFAULT 0 NOT NULL,
	`source_url` text,
	`source_key` text,
	`source_gone_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "story_chapters_position_range" CHECK("story_chapters"."position" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `story_chapters_position_unique` ON `story_chapters` (`story_id`,`position`);--> statement-breakpoint
CREATE INDEX `story_chapters_created_idx` ON `story_chapters` (`story_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `story_coauthors` (
	`story_id` text NOT NULL,
	`author_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`story_id`, `author_id`),
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `authors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `story_coauthors_author_idx` ON `story_coauthors` (`author_id`,`story_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `story_coauthors_position_unique` ON `story_coauthors` (`story_id`,`position`);--> statement-breakpoint
CREATE TABLE `story_sources` (
	`story_id` text PRIMARY KEY NOT NULL,
	`engine` text NOT NULL,
	`url` text NOT NULL,
	`uid` text,
	`site` text NOT NULL,
	`follow` integer DEFAULT true NOT NULL,
	`next_check_at` text,
	`last_checked_at` text,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `story_sources_due_idx` ON `story_sources` (`next_check_at`);--> statement-breakpoint
CREATE INDEX `story_sources_uid_idx` ON `story_sources` (`uid`);--> statement-breakpoint
CREATE INDEX `story_sources_url_idx` ON `story_sources` (`url`);--> statement-breakpoint
CREATE TABLE `story_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`story_id` text NOT NULL,
	`at` text NOT NULL,
	`origin` text NOT NULL,
	`source_url` text,
	`added_chapters` integer DEFAULT 0 NOT NULL,
	`updated_chapters` integer DEFAULT 0 NOT NULL,
	`kept_chapters` integer DEFAULT 0 NOT NULL,
	`gone_chapters` integer DEFAULT 0 NOT NULL,
	`details` text DEFAULT '{}' NOT NULL,
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `story_updates_story_idx` ON `story_updates` (`story_id`,`at`);--> statement-breakpoint
CREATE INDEX `story_updates_at_idx` ON `story_updates` (`at`);--> statement-breakpoint
ALTER TABLE `reading_progress` ADD `chapter` integer;--> statement-breakpoint
-- New story and tag columns are added in place, not by drizzle-kit's table rebuild: a rebuild
-- drops the tables' triggers (counts, search, renditions) and the indexes made by hand
-- (stories_search_attrs_idx). SQLite checks a column's CHECK against the existing rows as it adds it.
ALTER TABLE `stories` ADD `chapter_count` integer DEFAULT 1 NOT NULL CONSTRAINT "stories_chapter_count" CHECK("chapter_count" >= 1);--> statement-breakpoint
ALTER TABLE `stories` ADD `status` text CONSTRAINT "stories_status" CHECK("status" IS NULL OR "status" IN ('complete', 'in-progress'));--> statement-breakpoint
ALTER TABLE `stories` ADD `published_at` text;--> statement-breakpoint
ALTER TABLE `stories` ADD `source_updated_at` text;--> statement-breakpoint
ALTER TABLE `stories` ADD `language` text;--> statement-breakpoint
ALTER TABLE `stories` ADD `chapters_added_at` text;--> statement-breakpoint
ALTER TABLE `stories` ADD `reading_status` text CONSTRAINT "stories_reading_status" CHECK("reading_status" IS NULL OR "reading_status" IN ('want-to-read', 'reading', 'on-hold', 'finished', 'abandoned'));--> statement-breakpoint
ALTER TABLE `stories` ADD `finished_at` text;--> statement-breakpoint
ALTER TABLE `stories` ADD `read_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stories` ADD `favourite` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `stories_reading_status_idx` ON `stories` (`reading_status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `stories_favourite_idx` ON `stories` (`favourite`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `stories_chapters_added_idx` ON `stories` (`chapters_added_at`);--> statement-breakpoint
ALTER TABLE `tags` ADD `kind` text CONSTRAINT "tags_kind" CHECK("kind" IS NULL OR "kind" IN ('fandom', 'relationship', 'character', 'warning', 'category', 'rating', 'freeform'));--> statement-breakpoint
CREATE INDEX `tags_kind_idx` ON `tags` (`kind`,`story_count`);--> statement-breakpoint
-- Every story becomes one untitled chapter holding its text as it is: the story's own
-- content_html (the whole work, which an untitled single chapter is) stays byte-identical.
INSERT INTO `story_chapters` (`story_id`, `position`, `title`, `content_html`, `content_plain`, `word_count`, `source_url`, `created_at`, `updated_at`)
SELECT `id`, 1, '', coalesce(`content_html`, ''), coalesce(`content_plain`, ''), `word_count`, NULL, `created_at`, `updated_at`
FROM `stories` ORDER BY `seq`;--> statement-breakpoint
-- Co-authors count in an author's story_count (not in their rating sums, which stay the first
-- author's: docs/decisions.md, "Chapters"). Cascades (story or author deleted) fire these too.
CREATE TRIGGER `story_coauthors_counts_after_insert` AFTER INSERT ON `story_coauthors` BEGIN
  UPDATE `authors` SET `story_count` = `story_count` + 1 WHERE `id` = NEW.`author_id`;
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'story', `seq`, `id` FROM `stories` WHERE `id` = NEW.`story_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `story_coauthors_counts_after_delete` AFTER DELETE ON `story_coauthors` BEGIN
  UPDATE `authors` SET `story_count` = `story_count` - 1 WHERE `id` = OLD.`author_id`;
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`) SELECT 'story', `seq`, `id` FROM `stories` WHERE `id` = OLD.`story_id`;
END;
