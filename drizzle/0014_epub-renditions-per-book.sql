-- EPUB renditions are kept per book instead of the newest 10,000 overall (docs/decisions.md,
-- "KOReader sync"): a book's rows go when its story, series or tag is deleted (the triggers
-- below, not in the snapshot, like the count triggers of 0001), and rows of books already gone
-- are deleted here. The new columns are empty for older rows, which keep the old staleness check.
DROP INDEX `epub_renditions_entity_idx`;--> statement-breakpoint
ALTER TABLE `epub_renditions` ADD `content_digest` text;--> statement-breakpoint
ALTER TABLE `epub_renditions` ADD `modified` text;--> statement-breakpoint
ALTER TABLE `epub_renditions` ADD `texts` text;--> statement-breakpoint
ALTER TABLE `epub_renditions` ADD `by_name` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `epub_renditions_entity_idx` ON `epub_renditions` (`kind`,`entity_key`,`created_at`);;--> statement-breakpoint
DELETE FROM `epub_renditions` WHERE (`kind` = 'story' AND `entity_key` NOT IN (SELECT `id` FROM `stories`))
  OR (`kind` = 'series' AND `entity_key` NOT IN (SELECT `id` FROM `series`))
  OR (`kind` = 'tag' AND `entity_key` NOT IN (SELECT `id` FROM `tags`));--> statement-breakpoint
CREATE TRIGGER `stories_renditions_after_delete` AFTER DELETE ON `stories` BEGIN
  DELETE FROM `epub_renditions` WHERE `kind` = 'story' AND `entity_key` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `series_renditions_after_delete` AFTER DELETE ON `series` BEGIN
  DELETE FROM `epub_renditions` WHERE `kind` = 'series' AND `entity_key` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `tags_renditions_after_delete` AFTER DELETE ON `tags` BEGIN
  DELETE FROM `epub_renditions` WHERE `kind` = 'tag' AND `entity_key` = OLD.`id`;
END;
