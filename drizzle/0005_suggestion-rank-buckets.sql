-- Suggestion keys are ordered by a rank bucket instead of the exact weight (src/search/suggestions.ts,
-- rankBucket): below 32 stories the bucket is the weight itself, above it one bucket spans ~6% of
-- the weight. A story added to a big tag or author then changes one row of search_suggestions
-- instead of deleting and re-inserting every prefix key of that name (measured: ~40% of the pages
-- each story creation wrote, ~0.4 ms of its 3.5 ms at 100,000 stories). Lookups sort each bucket
-- they read by the exact weight, so the order is unchanged.
ALTER TABLE `search_suggestion_keys` RENAME COLUMN `weight` TO `rank_bucket`;
--> statement-breakpoint
-- Keys of weights from 32 up were stored under the exact weight: drop those suggestions and
-- mark their sources, so the first sync (at startup, src/plugins/search.ts) writes them again.
INSERT OR IGNORE INTO `search_dirty` (`kind`, `ref`, `uid`)
  SELECT s.`kind`, s.`ref`, coalesce(a.`id`, s.`ref`)
  FROM `search_suggestions` s LEFT JOIN `authors` a ON s.`kind` = 'author' AND a.`seq` = s.`ref`
  WHERE s.`weight` >= 32 AND s.`kind` IN ('author', 'series', 'tag');
--> statement-breakpoint
DELETE FROM `search_suggestion_keys` WHERE `suggestion_id` IN (SELECT `id` FROM `search_suggestions` WHERE `weight` >= 32);
--> statement-breakpoint
DELETE FROM `search_suggestions` WHERE `weight` >= 32;
