CREATE INDEX `authors_average_rating_idx` ON `authors` (("rating_sum" * 1.0 / "rated_story_count"),`id`);--> statement-breakpoint
CREATE INDEX `stories_rating_id_idx` ON `stories` (`rating`,`id`);--> statement-breakpoint
CREATE INDEX `stories_series_id_idx` ON `stories` (`series_id`,`id`);