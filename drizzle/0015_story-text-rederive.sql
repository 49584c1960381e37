-- Stories whose contentPlain and wordCount are to be derived again from their stored HTML by
-- the current plain-text rules (docs/decisions.md, "Story HTML": table cells and blocks are word
-- boundaries). SQL cannot run those rules, so this migration only lists the stories; the
-- service works through the list after start-up, in batches (src/stories/text-rederive.ts),
-- deleting each row in the same transaction that updates the story and its search document.
-- Not in the snapshot: no code reads it through Drizzle.
CREATE TABLE `story_text_rederive` (`seq` integer PRIMARY KEY NOT NULL);
--> statement-breakpoint
INSERT OR IGNORE INTO `story_text_rederive` (`seq`) SELECT `seq` FROM `stories` WHERE `content_html` IS NOT NULL;
