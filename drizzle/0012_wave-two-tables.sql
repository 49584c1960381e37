CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`kosync_key_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_unique` ON `api_tokens` (`hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_kosync_key_hash_unique` ON `api_tokens` (`kosync_key_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_created_at_idx` ON `api_tokens` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `epub_renditions` (
	`hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`entity_key` text NOT NULL,
	`entity_version` text NOT NULL,
	`spine` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `epub_renditions_entity_idx` ON `epub_renditions` (`kind`,`entity_key`);--> statement-breakpoint
CREATE INDEX `epub_renditions_created_at_idx` ON `epub_renditions` (`created_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	`params` text DEFAULT '{}' NOT NULL,
	`state` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	CONSTRAINT "jobs_status" CHECK("jobs"."status" IN ('queued', 'running', 'done', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE INDEX `jobs_status_idx` ON `jobs` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_created_at_idx` ON `jobs` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `kosync_documents` (
	`document` text PRIMARY KEY NOT NULL,
	`progress` text NOT NULL,
	`percentage` real NOT NULL,
	`device` text NOT NULL,
	`device_id` text NOT NULL,
	`timestamp` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `kosync_documents_timestamp_idx` ON `kosync_documents` (`timestamp`);--> statement-breakpoint
CREATE TABLE `search_terms` (
	`term` text PRIMARY KEY NOT NULL,
	`docs` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `stories_source_url_idx` ON `stories` (`source_url`);