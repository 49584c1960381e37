/**
 * Following a story at its source (docs/decisions.md, "Sources"): the update log, and (with the
 * refresh) checking the source again.
 */
import type { Db } from '../db/open.js';
import type { StoryUpdateDto } from '../schemas/source.js';
import { listUpdates } from '../sources/repository.js';
import { storyNotFound } from '../stories/service.js';
import { findStoryStamp } from '../stories/repository.js';
import { presentUpdate } from './present.js';

/** A story's updates, newest first; 404 for an unknown story. */
export function storyUpdates(db: Db, storyId: string, limit: number): StoryUpdateDto[] {
  if (findStoryStamp(db, storyId) === undefined) throw storyNotFound(storyId);
  return listUpdates(db, storyId, limit).map(presentUpdate);
}
