CREATE TABLE `author_urls` (
	`author_id` text NOT NULL,
	`position` integer NOT NULL,
	`url` text NOT NULL,
	PRIMARY KEY(`author_id`, `position`),
	FOREIGN KEY (`author_id`) REFERENCES `authors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `authors` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`notes` text,
	`avatar_image_path` text,
	`rating` integer,
	`story_count` integer DEFAULT 0 NOT NULL,
	`rated_story_count` integer DEFAULT 0 NOT NULL,
	`rating_sum` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "authors_rating_range" CHECK("authors"."rating" IS NULL OR "authors"."rating" BETWEEN 1 AND 5)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `authors_id_unique` ON `authors` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `authors_name_key_unique` ON `authors` (`name_key`);--> statement-breakpoint
CREATE INDEX `authors_created_at_idx` ON `authors` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `authors_updated_at_idx` ON `authors` (`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `authors_rating_idx` ON `authors` (`rating`,`id`);--> statement-breakpoint
CREATE INDEX `authors_story_count_idx` ON `authors` (`story_count`,`id`);--> statement-breakpoint
CREATE INDEX `authors_avatar_idx` ON `authors` (`avatar_image_path`);--> statement-breakpoint
CREATE TABLE `revoked_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revoked_tokens_expires_idx` ON `revoked_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `series` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`description` text,
	`story_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `series_name_key_unique` ON `series` (`name_key`);--> statement-breakpoint
CREATE INDEX `series_created_at_idx` ON `series` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `series_story_count_idx` ON `series` (`story_count`,`id`);--> statement-breakpoint
CREATE TABLE `stories` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`title` text NOT NULL,
	`summary` text,
	`description` text,
	`content_html` text,
	`content_plain` text,
	`source_url` text,
	`cover_path` text,
	`word_count` integer DEFAULT 0 NOT NULL,
	`rating` integer,
	`volume` integer,
	`author_id` text,
	`series_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`author_id`) REFERENCES `authors`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "stories_rating_range" CHECK("stories"."rating" IS NULL OR "stories"."rating" BETWEEN 1 AND 5),
	CONSTRAINT "stories_volume_range" CHECK("stories"."volume" IS NULL OR "stories"."volume" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stories_id_unique` ON `stories` (`id`);--> statement-breakpoint
CREATE INDEX `stories_created_at_idx` ON `stories` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `stories_updated_at_idx` ON `stories` (`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `stories_title_idx` ON `stories` ("title" COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE INDEX `stories_rating_idx` ON `stories` (`rating`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `stories_word_count_idx` ON `stories` (`word_count`,`id`);--> statement-breakpoint
CREATE INDEX `stories_volume_idx` ON `stories` (`volume`,`id`);--> statement-breakpoint
CREATE INDEX `stories_author_idx` ON `stories` (`author_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `stories_series_idx` ON `stories` (`series_id`,`volume`,`created_at`);--> statement-breakpoint
CREATE INDEX `stories_cover_idx` ON `stories` (`cover_path`);--> statement-breakpoint
CREATE TABLE `story_tags` (
	`story_id` text NOT NULL,
	`tag_id` text NOT NULL,
	PRIMARY KEY(`story_id`, `tag_id`),
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tag_id`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `story_tags_tag_idx` ON `story_tags` (`tag_id`,`story_id`);--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`story_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_name_unique` ON `tags` (`name`);--> statement-breakpoint
CREATE INDEX `tags_created_at_idx` ON `tags` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tags_story_count_idx` ON `tags` (`story_count`,`name`);