ALTER TABLE `reading_progress` ADD `chapters_added_at` text;--> statement-breakpoint
CREATE INDEX `reading_progress_unread_idx` ON `reading_progress` (`chapters_added_at`) WHERE "reading_progress"."chapters_added_at" > "reading_progress"."updated_at";--> statement-breakpoint
-- "Updated since you last read": each progress row carries its story's chapters_added_at, so
-- the rows whose story gained chapters after the save are exactly the partial index above.
-- Kept by the database in the same transaction as every append, save and restore.
UPDATE `reading_progress` SET `chapters_added_at` = (SELECT `chapters_added_at` FROM `stories` WHERE `id` = `reading_progress`.`story_id`);--> statement-breakpoint
CREATE TRIGGER `stories_chapters_added_progress` AFTER UPDATE OF `chapters_added_at` ON `stories` BEGIN
  UPDATE `reading_progress` SET `chapters_added_at` = NEW.`chapters_added_at` WHERE `story_id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `reading_progress_chapters_added` AFTER INSERT ON `reading_progress` BEGIN
  UPDATE `reading_progress` SET `chapters_added_at` = (SELECT `chapters_added_at` FROM `stories` WHERE `id` = NEW.`story_id`)
  WHERE `story_id` = NEW.`story_id`;
END;
