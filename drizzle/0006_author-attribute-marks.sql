-- A change to an author's story count (every story added to or taken from the author) marked the
-- author 'author', which rebuilds its FTS document (name, notes, URLs) although none of that
-- text changed. It now marks 'author-attrs': the suggestion weight is refreshed and listeners
-- (the Typesense outbox) are told, the FTS document is left alone (src/search/sync.ts).
DROP TRIGGER `authors_search_after_update`;
--> statement-breakpoint
CREATE TRIGGER `authors_search_after_update` AFTER UPDATE OF `name`, `notes`, `story_count` ON `authors`
WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`notes` IS NOT NEW.`notes` OR OLD.`story_count` IS NOT NEW.`story_count` BEGIN
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
    SELECT 'author', NEW.`seq`, NEW.`id` WHERE OLD.`name` IS NOT NEW.`name` OR OLD.`notes` IS NOT NEW.`notes`;
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
    SELECT 'author-attrs', NEW.`seq`, NEW.`id` WHERE OLD.`story_count` IS NOT NEW.`story_count`;
  INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
    SELECT 'story', `seq`, `id` FROM `stories` WHERE `author_id` = NEW.`id` AND OLD.`name` IS NOT NEW.`name`;
END;
