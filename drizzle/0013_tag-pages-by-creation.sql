-- Each tag link carries its story's created_at, so a tag's stories in the default order (newest
-- first) are one walk of that tag's part of an index (src/stories/page-queries.ts). Filled here
-- for the links that exist, then kept by the triggers below in the same transaction as every
-- change: a new link copies it, and a story whose created_at changes (an archive restore can set
-- it) updates its links. The backfill and the index were written by hand around drizzle-kit's
-- ALTER TABLE; the triggers, like the count triggers of 0001, are not in the snapshot.
ALTER TABLE `story_tags` ADD `story_created_at` text;--> statement-breakpoint
UPDATE `story_tags` SET `story_created_at` = (SELECT `created_at` FROM `stories` WHERE `stories`.`id` = `story_tags`.`story_id`);--> statement-breakpoint
CREATE INDEX `story_tags_tag_created_idx` ON `story_tags` (`tag_id`,`story_created_at`,`story_id`);--> statement-breakpoint
CREATE TRIGGER `story_tags_created_at_after_insert` AFTER INSERT ON `story_tags` BEGIN
  UPDATE `story_tags` SET `story_created_at` = (SELECT `created_at` FROM `stories` WHERE `id` = NEW.`story_id`)
  WHERE `story_id` = NEW.`story_id` AND `tag_id` = NEW.`tag_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `stories_tag_links_after_created_at_update` AFTER UPDATE OF `created_at` ON `stories`
WHEN OLD.`created_at` IS NOT NEW.`created_at` BEGIN
  UPDATE `story_tags` SET `story_created_at` = NEW.`created_at` WHERE `story_id` = NEW.`id`;
END;
