/**
 * The bulk edit (docs/api.md, "Bulk edit — /api/stories/bulk"; docs/decisions.md, "Bulk edit"):
 * up to 500 stories get tags and shelves added and removed, author, series, rating, reading status
 * and favourite set, or are deleted, in one write transaction: all or nothing. Every rule is
 * checked before the write and one 400 names every bad field and id. The story, tag and shelf
 * functions do the work, so counts (triggers) and search documents (`writeTransaction`) follow
 * in the same transaction as they do for one story.
 */
import type { Db, Tx } from '../db/open.js';
import { BadRequest, type ErrorDetails } from '../errors.js';
import { commitImageChange } from '../images/image-changes.js';
import type { ImageStore } from '../images/store.js';
import { nextUpdatedAt, nowIso } from '../lib/clock.js';
import type { BulkEditBody, BulkEditResult } from '../schemas/bulk.js';
import { shelfKinds } from '../shelves/repository.js';
import { appendToShelf, removeFromShelf, unknownStories } from '../shelves/service.js';
import { parseStoryBody, storyBodyIssues, type StoryInput } from '../stories/input.js';
import { findStoryStamp, linkTags, missingStoryIds, unlinkTags, updateStory, type StoryPatch } from '../stories/repository.js';
import { applyFavourite, applyReadingStatus } from '../stories/reading-status.js';
import { removeStory, storyPatchOf } from '../stories/service.js';
import { findOrCreateTags, findTagByName } from '../tags/repository.js';
import { throwIfInvalid } from '../validation.js';

type Part = 'add' | 'remove';

/** The story rules of a body's fields (src/stories/input.ts), their details renamed to where the bulk body holds them. */
function storyRules(db: Db | Tx, details: ErrorDetails, fields: Record<string, unknown>, prefix: string): void {
  for (const [field, message] of Object.entries(storyBodyIssues(db, fields))) details[`${prefix}.${field}`] = message;
}

/** The shelf ids of one part that name no shelf, or a smart one (its stories are its search's). */
function shelfIssues(db: Db | Tx, details: ErrorDetails, part: Part, shelfIds: readonly string[] | undefined): void {
  if (shelfIds === undefined || shelfIds.length === 0) return;
  const kinds = shelfKinds(db, shelfIds);
  const missing = shelfIds.filter((id) => !kinds.has(id));
  const smart = shelfIds.filter((id) => kinds.get(id) === 'smart');
  const problems = [
    ...(missing.length > 0 ? [`no shelf has ${missing.length === 1 ? 'this id' : 'these ids'}: ${missing.join(', ')}`] : []),
    ...(smart.length > 0 ? [`smart shelves hold a search, not chosen stories: ${smart.join(', ')}`] : []),
  ];
  if (problems.length > 0) details[`${part}.shelfIds`] = problems.join('; ');
}

/** Whether the body asks for any change besides `delete`. */
function changesSomething(body: Partial<BulkEditBody>): boolean {
  const listed = (part: BulkEditBody['add']) => (part?.tagNames?.length ?? 0) + (part?.shelfIds?.length ?? 0) > 0;
  return listed(body.add) || listed(body.remove) || (body.set !== undefined && Object.keys(body.set).length > 0);
}

/**
 * Every rule offence of a bulk body's schema-valid fields (the route's `bodyRules` too, so a
 * schema failure and these are one 400): ids that name no story, every one named; tag names
 * blank; shelves unknown or smart; author or series names blank; `delete` with other changes; a
 * body that changes nothing.
 */
export function bulkBodyIssues(db: Db | Tx, body: Partial<BulkEditBody>): ErrorDetails {
  const details: ErrorDetails = {};
  if (body.ids !== undefined) {
    const missing = missingStoryIds(db, [...new Set(body.ids)]);
    if (missing.length > 0) Object.assign(details, unknownStories('ids', missing).details);
  }
  for (const part of ['add', 'remove'] as const) {
    const tagNames = body[part]?.tagNames;
    if (tagNames !== undefined) storyRules(db, details, { tagNames }, part);
    shelfIssues(db, details, part, body[part]?.shelfIds);
  }
  const { authorName, seriesName } = body.set ?? {};
  storyRules(db, details, { authorName, seriesName }, 'set');
  if (body.delete === true && changesSomething(body)) details.delete = 'cannot be combined with add, remove or set';
  if (body.delete !== true && !changesSomething(body) && Object.keys(details).length === 0 && body.ids !== undefined) {
    details.body = 'changes nothing: give add, remove, set or delete';
  }
  return details;
}

/** What one bulk edit does to each story, prepared once inside the transaction. */
interface Plan {
  addTagIds: string[];
  removeTagIds: string[];
  /** Columns whose change is an edit of the story: `updatedAt` moves on. */
  edit: StoryPatch;
}

function plan(tx: Tx, body: BulkEditBody, input: StoryInput, tagNames: { add: string[]; remove: string[] }): Plan {
  const edit = storyPatchOf(tx, input);
  return {
    addTagIds: tagNames.add.length === 0 ? [] : findOrCreateTags(tx, tagNames.add).map((tag) => tag.id),
    removeTagIds: tagNames.remove.flatMap((name) => findTagByName(tx, name)?.id ?? []),
    edit,
  };
}

/**
 * Applies the plan to one story (it exists: checked in the same transaction). Reading status and
 * favourite go through their own rules (src/stories/reading-status.ts: setting `finished` is a
 * finish), which leave `updatedAt` alone.
 */
function editStory(tx: Tx, id: string, steps: Plan, set: BulkEditBody['set'], now: string): void {
  const linked = steps.addTagIds.length === 0 ? 0 : linkTags(tx, id, steps.addTagIds);
  const unlinked = steps.removeTagIds.length === 0 ? 0 : unlinkTags(tx, id, steps.removeTagIds);
  if (linked + unlinked > 0 || Object.keys(steps.edit).length > 0) {
    updateStory(tx, id, { ...steps.edit, updatedAt: nextUpdatedAt(findStoryStamp(tx, id)!.updatedAt) });
  }
  if (set?.readingStatus !== undefined) applyReadingStatus(tx, id, set.readingStatus, now);
  if (set?.favourite !== undefined) applyFavourite(tx, id, set.favourite);
}

/** The cleaned tag names of one part, as a story body's `tagNames` are cleaned. */
function cleanedTagNames(db: Db, raw: readonly string[] | undefined): string[] {
  return raw === undefined ? [] : (parseStoryBody(db, { tagNames: [...raw] }).tagNames ?? []);
}

/**
 * `POST /api/stories/bulk`: one transaction, all or nothing. Deleted stories' covers and images
 * are released after the commit, as one story's delete releases them.
 */
export async function bulkEdit(db: Db, store: ImageStore, body: BulkEditBody): Promise<BulkEditResult> {
  throwIfInvalid(bulkBodyIssues(db, body));
  const ids = [...new Set(body.ids)];
  const input = parseStoryBody(db, { authorName: body.set?.authorName, seriesName: body.set?.seriesName, rating: body.set?.rating });
  const tagNames = { add: cleanedTagNames(db, body.add?.tagNames), remove: cleanedTagNames(db, body.remove?.tagNames) };
  return commitImageChange(db, store, {}, (tx) => {
    // Checked again inside the transaction: a story may have gone since.
    const issues = bulkBodyIssues(tx, body);
    if (Object.keys(issues).length > 0) throw new BadRequest('Validation failed', issues);
    if (body.delete === true) {
      const released = ids.flatMap((id) => removeStory(tx, id));
      return { result: { message: `${ids.length} ${ids.length === 1 ? 'story' : 'stories'} deleted`, storyCount: ids.length }, released };
    }
    const steps = plan(tx, body, input, tagNames);
    const now = nowIso();
    for (const id of ids) editStory(tx, id, steps, body.set, now);
    for (const shelfId of body.add?.shelfIds ?? []) appendToShelf(tx, shelfId, ids, 'add.shelfIds');
    for (const shelfId of body.remove?.shelfIds ?? []) removeFromShelf(tx, shelfId, ids);
    return { result: { message: `${ids.length} ${ids.length === 1 ? 'story' : 'stories'} changed`, storyCount: ids.length }, released: [] };
  });
}
