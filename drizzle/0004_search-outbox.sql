CREATE TABLE `search_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`entity_id` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`enqueued_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	CONSTRAINT "search_outbox_kind" CHECK("search_outbox"."kind" IN ('story', 'author'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_outbox_entity_unique` ON `search_outbox` (`kind`,`entity_id`);--> statement-breakpoint
CREATE INDEX `search_outbox_next_attempt_idx` ON `search_outbox` (`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `search_outbox_lag_idx` ON `search_outbox` (`attempts`,`enqueued_at`);