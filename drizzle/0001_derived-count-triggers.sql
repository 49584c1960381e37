-- Derived counts kept by the database itself, in the same transaction as every change that
-- moves them: authors.story_count / rated_story_count / rating_sum, series.story_count and
-- tags.story_count. Foreign-key actions (ON DELETE SET NULL / CASCADE) fire these triggers
-- too, so deleting an author, series, tag or story keeps every count exact.
CREATE TRIGGER `stories_counts_after_insert` AFTER INSERT ON `stories` BEGIN
  UPDATE `authors` SET
    `story_count` = `story_count` + 1,
    `rated_story_count` = `rated_story_count` + (NEW.`rating` IS NOT NULL),
    `rating_sum` = `rating_sum` + coalesce(NEW.`rating`, 0)
  WHERE `id` = NEW.`author_id`;
  UPDATE `series` SET `story_count` = `story_count` + 1 WHERE `id` = NEW.`series_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `stories_counts_after_delete` AFTER DELETE ON `stories` BEGIN
  UPDATE `authors` SET
    `story_count` = `story_count` - 1,
    `rated_story_count` = `rated_story_count` - (OLD.`rating` IS NOT NULL),
    `rating_sum` = `rating_sum` - coalesce(OLD.`rating`, 0)
  WHERE `id` = OLD.`author_id`;
  UPDATE `series` SET `story_count` = `story_count` - 1 WHERE `id` = OLD.`series_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `stories_author_counts_after_update` AFTER UPDATE OF `author_id`, `rating` ON `stories`
WHEN OLD.`author_id` IS NOT NEW.`author_id` OR OLD.`rating` IS NOT NEW.`rating` BEGIN
  UPDATE `authors` SET
    `story_count` = `story_count` - 1,
    `rated_story_count` = `rated_story_count` - (OLD.`rating` IS NOT NULL),
    `rating_sum` = `rating_sum` - coalesce(OLD.`rating`, 0)
  WHERE `id` = OLD.`author_id`;
  UPDATE `authors` SET
    `story_count` = `story_count` + 1,
    `rated_story_count` = `rated_story_count` + (NEW.`rating` IS NOT NULL),
    `rating_sum` = `rating_sum` + coalesce(NEW.`rating`, 0)
  WHERE `id` = NEW.`author_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `stories_series_counts_after_update` AFTER UPDATE OF `series_id` ON `stories`
WHEN OLD.`series_id` IS NOT NEW.`series_id` BEGIN
  UPDATE `series` SET `story_count` = `story_count` - 1 WHERE `id` = OLD.`series_id`;
  UPDATE `series` SET `story_count` = `story_count` + 1 WHERE `id` = NEW.`series_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `story_tags_counts_after_insert` AFTER INSERT ON `story_tags` BEGIN
  UPDATE `tags` SET `story_count` = `story_count` + 1 WHERE `id` = NEW.`tag_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `story_tags_counts_after_delete` AFTER DELETE ON `story_tags` BEGIN
  UPDATE `tags` SET `story_count` = `story_count` - 1 WHERE `id` = OLD.`tag_id`;
END;
