-- Author and series name keys become a full case fold instead of a lowercasing (src/lib/names.ts,
-- nameKey; decisions.md "Name keys"): "ΣΟΦΟΣ" and "σοφοσ", "Straße" and "STRASSE" are one name.
-- `storyshelf_name_key` is that same function, registered on every connection (src/db/open.ts).
-- An old library may hold two names that now fold to one key. Nothing is merged: in such a group
-- the row whose key is already the fold keeps it, else the oldest row takes it; the others keep
-- their old key, stay reachable by id and can be renamed or deleted by hand.
CREATE TEMP TABLE `author_fold` AS
  SELECT `seq`, `name_key` AS `old_key`, storyshelf_name_key(`name`) AS `new_key` FROM `authors`;
--> statement-breakpoint
CREATE INDEX temp.`author_fold_new_key` ON `author_fold` (`new_key`, `seq`);
--> statement-breakpoint
UPDATE `authors` SET `name_key` = (SELECT f.`new_key` FROM `author_fold` f WHERE f.`seq` = `authors`.`seq`)
WHERE `seq` IN (
  SELECT f.`seq` FROM `author_fold` f
  WHERE f.`old_key` <> f.`new_key` AND NOT EXISTS (
    SELECT 1 FROM `author_fold` g
    WHERE g.`new_key` = f.`new_key` AND g.`seq` <> f.`seq` AND (g.`old_key` = g.`new_key` OR g.`seq` < f.`seq`)
  )
);
--> statement-breakpoint
-- Search documents carry the author's key (Typesense filters and sorts by it): rewrite them.
INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
  SELECT 'author', a.`seq`, a.`id` FROM `authors` a JOIN `author_fold` f ON f.`seq` = a.`seq` WHERE a.`name_key` <> f.`old_key`;
--> statement-breakpoint
INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
  SELECT 'story', s.`seq`, s.`id` FROM `stories` s JOIN `authors` a ON a.`id` = s.`author_id`
  JOIN `author_fold` f ON f.`seq` = a.`seq` WHERE a.`name_key` <> f.`old_key`;
--> statement-breakpoint
DROP TABLE temp.`author_fold`;
--> statement-breakpoint
CREATE TEMP TABLE `series_fold` AS
  SELECT `id`, `created_at`, `name_key` AS `old_key`, storyshelf_name_key(`name`) AS `new_key` FROM `series`;
--> statement-breakpoint
CREATE INDEX temp.`series_fold_new_key` ON `series_fold` (`new_key`, `created_at`, `id`);
--> statement-breakpoint
UPDATE `series` SET `name_key` = (SELECT f.`new_key` FROM `series_fold` f WHERE f.`id` = `series`.`id`)
WHERE `id` IN (
  SELECT f.`id` FROM `series_fold` f
  WHERE f.`old_key` <> f.`new_key` AND NOT EXISTS (
    SELECT 1 FROM `series_fold` g
    WHERE g.`new_key` = f.`new_key` AND g.`id` <> f.`id`
      AND (g.`old_key` = g.`new_key` OR g.`created_at` < f.`created_at` OR (g.`created_at` = f.`created_at` AND g.`id` < f.`id`))
  )
);
--> statement-breakpoint
DROP TABLE temp.`series_fold`;
