-- Tags are keyed by the full case fold of their name (src/lib/names.ts, nameKey; decisions.md
-- "Name keys"), like authors and series since 0007: "ΣΟΦΟΣ" and "σοφοσ", "Straße" and "STRASSE"
-- are one tag. 0008 added the `name_key` column; this fills it with `storyshelf_name_key`, the
-- same function registered on every connection (src/db/open.ts).
-- Unlike authors and series, two existing tags that now fold alike are merged: a tag is only a
-- label, so two spellings of one label are what a user would call a duplicate. In each group the
-- tag with the most stories (else the oldest, else the smallest id) keeps its id and name, so the
-- fewest links move; the others' links move to it and they are deleted. The count, search and
-- suggestion triggers (0001, 0002) see those link inserts and deletes as any other, so the story
-- counts stay exact and the touched stories are indexed again (and queued for Typesense).
CREATE TEMP TABLE `tag_fold` AS
  SELECT `id`, `created_at`, `story_count`, storyshelf_name_key(`name`) AS `key` FROM `tags`;
--> statement-breakpoint
CREATE INDEX temp.`tag_fold_key` ON `tag_fold` (`key`);
--> statement-breakpoint
CREATE TEMP TABLE `tag_merge` AS
  SELECT f.`id` AS `from_id`,
    (SELECT g.`id` FROM `tag_fold` g WHERE g.`key` = f.`key` ORDER BY g.`story_count` DESC, g.`created_at`, g.`id` LIMIT 1) AS `to_id`
  FROM `tag_fold` f;
--> statement-breakpoint
DELETE FROM temp.`tag_merge` WHERE `from_id` = `to_id`;
--> statement-breakpoint
INSERT OR IGNORE INTO `story_tags` (`story_id`, `tag_id`)
  SELECT st.`story_id`, m.`to_id` FROM `story_tags` st JOIN temp.`tag_merge` m ON m.`from_id` = st.`tag_id`;
--> statement-breakpoint
-- Explicitly, not through the foreign-key cascade, so the counts do not depend on the pragma.
DELETE FROM `story_tags` WHERE `tag_id` IN (SELECT `from_id` FROM temp.`tag_merge`);
--> statement-breakpoint
DELETE FROM `tags` WHERE `id` IN (SELECT `from_id` FROM temp.`tag_merge`);
--> statement-breakpoint
UPDATE `tags` SET `name_key` = storyshelf_name_key(`name`);
--> statement-breakpoint
DROP TABLE temp.`tag_merge`;
--> statement-breakpoint
DROP TABLE temp.`tag_fold`;
