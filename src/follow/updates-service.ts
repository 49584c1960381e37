/**
 * Telling the reader what arrived from the sources (docs/decisions.md, "Sources › Telling the
 * reader"): the home page's "Updated since you last read", the OPDS "Updated" feed's page of
 * story ids, and the update log's newest entries for the Atom feed.
 */
import type { Db } from '../db/open.js';
import type { StoryCard } from '../stories/present.js';
import { storyCards } from '../stories/list-service.js';
import { latestUpdates, unreadUpdates, updatedStoryIdPage, type UpdateEntryRow } from './updates-repository.js';

/** A story with chapters newer than the reader's last save in it, as the home page shows it. */
export interface UnreadUpdateCard {
  card: StoryCard;
  /** Chapters created after the save. */
  newChapters: number;
  /** The 1-based index of the first of them, where the card leads. */
  firstNew: number;
}

/**
 * The stories that gained chapters after the reader last saved a position in them, newest
 * arrival first, at most `limit`: one walk of a partial index, whatever the library's size.
 */
export function unreadUpdateCards(db: Db, limit: number): UnreadUpdateCard[] {
  const rows = unreadUpdates(db, limit);
  const byId = new Map(rows.map((row) => [row.storyId, row]));
  return storyCards(db, rows.map((row) => row.storyId)).flatMap((card) => {
    const row = byId.get(card.id);
    return row === undefined ? [] : [{ card, newChapters: row.newChapters, firstNew: row.firstNew }];
  });
}

/** A page of the stories that gained chapters, newest arrival first (the OPDS "Updated" feed). */
export function updatedStoryIds(db: Db, window: { limit: number; offset: number }): { ids: string[]; total: number } {
  return updatedStoryIdPage(db, window);
}

/** At most this many entries in the Atom feed of updates: feed readers poll, and keep what they saw. */
export const UPDATE_FEED_MAX = 50;

/** The newest entries of the update log, across every story, newest first. */
export function latestUpdateEntries(db: Db): UpdateEntryRow[] {
  return latestUpdates(db, UPDATE_FEED_MAX);
}
