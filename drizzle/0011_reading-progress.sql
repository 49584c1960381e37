CREATE TABLE `reading_progress` (
	`story_id` text PRIMARY KEY NOT NULL,
	`progress` real NOT NULL,
	`position` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "reading_progress_range" CHECK("reading_progress"."progress" >= 0 AND "reading_progress"."progress" <= 1),
	CONSTRAINT "reading_progress_position_length" CHECK("reading_progress"."position" IS NULL OR length("reading_progress"."position") <= 1000)
);
--> statement-breakpoint
CREATE INDEX `reading_progress_updated_at_idx` ON `reading_progress` (`updated_at`,`story_id`);