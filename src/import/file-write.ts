/**
 * Writing an imported file's story (docs/decisions.md, "File import"): a new story, or, for a
 * work the library already holds (the same FanFicFare uid, else the same source URL), an update
 * of it. Chapters are matched by their source key (FanFicFare's chapter URL) and brought up to
 * the file's by the same plan a refresh follows (src/import/url/source-merge.ts): new chapters appended,
 * changed ones replaced (unless the new text is empty or a tenth of the old: kept), a chapter the
 * file does not have kept as it is (a file may hold only part of a work: it is not marked gone).
 * What the work says of itself (status, dates, language) follows the file; what the reader may
 * have edited (title, authors, summary, tags, series, rating, cover) is kept. An update is logged
 * (`story_updates`, origin `file`), and the work is remembered in `story_sources` (engine `file`,
 * not followed: a file is matched, never fetched; `fanficfare` when FanFicFare downloaded it: then
 * the story follows the address FanFicFare was given, and a refresh brings it up to FanFicFare's
 * next download of it by the same plan, {@link refreshImportedStory}).
 * Runs inside the caller's write transaction; nothing here awaits.
 */
import type { Tx } from '../db/open.js';
import { inlineImagePaths } from '../images/inline-images.js';
import { nextUpdatedAt, nowIso } from '../lib/clock.js';
import { planMerge, type FreshChapter, type HeldChapter } from './url/source-merge.js';
import { nextCheckAt, type RefreshOutcome } from './url/source-import.js';
import { insertSource, insertUpdate, recordCheck, sourceOf, storyOfUid, updateSource } from './url/source-rows.js';
import * as chapters from '../stories/chapter-repository.js';
import { appendChapters, reassembleStory } from '../stories/chapter-service.js';
import type { ChapterText } from '../stories/chapter-text.js';
import { eq } from 'drizzle-orm';
import { stories } from '../db/schema.js';
import { findStoryIdBySourceUrl, findStoryStamp, updateStory, type StoryPatch } from '../stories/repository.js';
import { insertNewStory, storyNotFound } from '../stories/service.js';
import type { StoryInput } from '../stories/input.js';
import type { ParsedStory } from './parse.js';
import { storyInputOf } from './story-input.js';

/**
 * Where the file came from: a file imported by hand, or FanFicFare's download of `address` (then
 * the story follows its source: `address` is what a refresh gives FanFicFare again, and the first
 * check falls within `SOURCE_CHECK_INTERVAL_HOURS`).
 */
export type ImportOrigin = { engine: 'file' } | { engine: 'fanficfare'; address: string; checkIntervalHours: number };

/** A refresh of a story that follows a FanFicFare source: the story it updates, what asked, and the address checked. */
export interface SourceRefresh {
  storyId: string;
  origin: 'refresh' | 'schedule';
  address: string;
  checkIntervalHours: number;
}

/** What the write did, for the job's result. */
export interface ImportWrite {
  storyId: string;
  title: string;
  created: boolean;
  /** Chapter titles (or "Chapter N") of each kind of change. */
  added: string[];
  updated: string[];
  kept: string[];
  /** Chapters the source no longer has, marked (a refresh only: a file may hold part of a work). */
  gone: string[];
  unchanged: number;
  /** Inline images the replaced chapters named and no longer do: released after the commit. */
  released: string[];
  /** Every inline image the written chapters name: an image this import stored and does not name is discarded. */
  named: string[];
}

/** What a work says of itself, which follows the file on a re-import. */
const WORK_FIELDS = ['status', 'publishedAt', 'sourceUpdatedAt', 'language'] as const;

function findWorkFields(tx: Tx, storyId: string) {
  return tx.select({ status: stories.status, publishedAt: stories.publishedAt, sourceUpdatedAt: stories.sourceUpdatedAt, language: stories.language }).from(stories).where(eq(stories.id, storyId)).get();
}

function label(chapter: { title: string }, position: number): string {
  return chapter.title === '' ? `Chapter ${position}` : chapter.title;
}

function site(url: string): string {
  return new URL(url).host;
}

/**
 * Remembers where the story's work comes from, once. An existing row is left as it is, but for a
 * hand-imported file's (`file`) when FanFicFare downloads the same work: the story then follows it.
 */
function rememberSource(tx: Tx, storyId: string, story: ParsedStory, sourceUrl: string | null | undefined, origin: ImportOrigin, status: StoryInput['status'], now: string): void {
  const held = sourceOf(tx, storyId);
  if (origin.engine === 'fanficfare') {
    if (held !== undefined && held.engine !== 'file') return;
    const row = {
      engine: 'fanficfare',
      url: origin.address,
      uid: story.uid ?? held?.uid ?? null,
      site: site(origin.address),
      follow: true,
      nextCheckAt: nextCheckAt(origin, status ?? null, Date.parse(now), true),
      lastCheckedAt: now,
    };
    if (held === undefined) insertSource(tx, { storyId, ...row, createdAt: now });
    else updateSource(tx, storyId, row);
    return;
  }
  if (sourceUrl === undefined || sourceUrl === null || held !== undefined) return;
  insertSource(tx, { storyId, engine: 'file', url: sourceUrl, uid: story.uid ?? null, site: site(sourceUrl), follow: false, createdAt: now });
}

/**
 * The titles of what a merge wrote, and what the job's result and the log say of it, with the
 * work's status as it now stands (a refresh's next check follows it). 404 when the story is gone.
 */
function mergeInto(tx: Tx, existing: string, input: ReturnType<typeof storyInputOf>, now: string, markGone: boolean): { write: ImportWrite; status: (typeof stories.$inferSelect)['status'] } {
  const fresh = input.chapters as ChapterText[];
  const stamp = findStoryStamp(tx, existing);
  if (stamp === undefined) throw storyNotFound(existing);
  const rows = chapters.loadChapters(tx, existing);
  let held: HeldChapter[] = rows.map((row) => ({ position: row.index, title: row.title, sourceKey: row.sourceKey, contentPlain: row.contentPlain, sourceGoneAt: row.sourceGoneAt }));
  let incoming: FreshChapter[] = fresh.map((chapter) => ({ title: chapter.title, sourceKey: chapter.sourceKey ?? '', plainText: chapter.contentPlain }));
  const keys = new Set(held.map((chapter) => chapter.sourceKey));
  const byKey = fresh.some((chapter) => chapter.sourceKey !== null && keys.has(chapter.sourceKey));
  if (!byKey) {
    // No key in common (another program's file, or another engine's keys): chapters match by position.
    held = held.map((chapter) => ({ ...chapter, sourceKey: `#${chapter.position}` }));
    incoming = incoming.map((chapter, index) => ({ ...chapter, sourceKey: `#${index + 1}` }));
  }
  const plan = planMerge(held, incoming);
  // Only a whole work matched by its chapters' keys says a chapter is gone (by position, a shorter file would "lose" its last chapters).
  const gone = markGone && byKey ? plan.gone : [];
  const returned = markGone && byKey ? plan.returned : [];
  const before = new Map(rows.map((row) => [row.index, row]));
  const released: string[] = [];
  for (const { position, index } of [...plan.updated, ...returned]) {
    const chapter = fresh[index] as ChapterText;
    const old = before.get(position);
    const still = new Set(inlineImagePaths(chapter.contentHtml));
    released.push(...inlineImagePaths(old?.contentHtml).filter((relPath) => !still.has(relPath)));
    chapters.updateChapter(tx, existing, position, { ...chapter, sourceKey: chapter.sourceKey ?? old?.sourceKey ?? null }, now);
  }
  for (const position of gone) chapters.markChapterGone(tx, existing, position, now);
  const added = plan.added.map((index) => fresh[index] as ChapterText);
  appendChapters(tx, existing, added, now);
  const changed = plan.updated.length + plan.added.length + gone.length + returned.length > 0;
  if (changed) reassembleStory(tx, existing);
  const current = findWorkFields(tx, existing);
  const patch: StoryPatch = {};
  for (const key of WORK_FIELDS) if (input[key] !== undefined && input[key] !== current?.[key]) Object.assign(patch, { [key]: input[key] });
  // The stamp moves when the story changed: the EPUB and KOReader's copy follow it.
  if (changed || Object.keys(patch).length > 0) updateStory(tx, existing, { ...patch, updatedAt: nextUpdatedAt(stamp.updatedAt) });
  const write: ImportWrite = {
    storyId: existing,
    title: input.title,
    created: false,
    added: plan.added.map((index, n) => label(fresh[index] as ChapterText, rows.length + n + 1)),
    updated: plan.updated.map(({ position, index }) => label(fresh[index] as ChapterText, position)),
    kept: plan.kept.map(({ position }) => label(before.get(position) as { title: string }, position)),
    gone: gone.map((position) => label(before.get(position) as { title: string }, position)),
    unchanged: fresh.length - plan.added.length - plan.updated.length - plan.kept.length,
    released,
    named: [...plan.updated.map(({ index }) => fresh[index] as ChapterText), ...returned.map(({ index }) => fresh[index] as ChapterText), ...added].flatMap((chapter) => inlineImagePaths(chapter.contentHtml)),
  };
  return { write, status: patch.status !== undefined ? patch.status : (current?.status ?? null) };
}

function changedSomething(write: ImportWrite): boolean {
  return write.added.length + write.updated.length + write.gone.length > 0;
}

/** Writes `story` as a new story, or as an update of the one the library holds of the same work. */
export function writeImportedStory(tx: Tx, story: ParsedStory, origin: ImportOrigin): ImportWrite {
  const input = storyInputOf(story);
  const now = nowIso();
  const fresh = input.chapters as ChapterText[];
  const existing = (story.uid === undefined ? undefined : storyOfUid(tx, story.uid)) ?? (input.sourceUrl ? findStoryIdBySourceUrl(tx, input.sourceUrl) : undefined);
  if (existing === undefined) {
    const storyId = insertNewStory(tx, input, input.title, undefined, now);
    rememberSource(tx, storyId, story, input.sourceUrl, origin, input.status, now);
    const added = fresh.map(label);
    // A story that follows its source starts its update log with its import, as an otwarchive work's does.
    if (origin.engine === 'fanficfare') insertUpdate(tx, { storyId, at: now, origin: 'import', sourceUrl: origin.address, details: { added, updated: [], kept: [], gone: [] } });
    return { storyId, title: input.title, created: true, added, updated: [], kept: [], gone: [], unchanged: 0, released: [], named: fresh.flatMap((chapter) => inlineImagePaths(chapter.contentHtml)) };
  }
  const result = mergeInto(tx, existing, input, now, false).write;
  rememberSource(tx, existing, story, input.sourceUrl, origin, input.status, now);
  if (changedSomething(result) || result.kept.length > 0) {
    insertUpdate(tx, { storyId: existing, at: now, origin: 'file', sourceUrl: input.sourceUrl ?? null, details: { added: result.added, updated: result.updated, kept: result.kept, gone: [] } });
  }
  return result;
}

/**
 * Brings story `refresh.storyId` up to FanFicFare's fresh download of its source (docs/decisions.md,
 * "Sources"): the file import's plan, but the download is the whole work, so a chapter it no
 * longer has is marked gone (and unmarked when it comes back), as a built-in refresh does. The
 * update is logged when anything changed or was refused, and the check recorded either way.
 * 404 when the story was deleted meanwhile.
 */
export function refreshImportedStory(tx: Tx, story: ParsedStory, refresh: SourceRefresh): ImportWrite {
  const input = storyInputOf(story);
  const now = nowIso();
  const { write: result, status } = mergeInto(tx, refresh.storyId, input, now, true);
  if (changedSomething(result) || result.kept.length > 0) {
    insertUpdate(tx, { storyId: refresh.storyId, at: now, origin: refresh.origin, sourceUrl: refresh.address, details: { added: result.added, updated: result.updated, kept: result.kept, gone: result.gone } });
  }
  recordCheck(tx, refresh.storyId, { at: now, nextCheckAt: nextCheckAt(refresh, status, Date.parse(now), false), error: null });
  return result;
}

/** The counts a refresh answers with. */
export function refreshOutcomeOf(write: ImportWrite): RefreshOutcome {
  return {
    result: changedSomething(write) ? 'updated' : 'unchanged',
    addedChapters: write.added.length,
    updatedChapters: write.updated.length,
    keptChapters: write.kept.length,
    goneChapters: write.gone.length,
  };
}

/** The job's sentence on what a write did. */
export function describeWrite(write: ImportWrite): string {
  if (write.created) return '';
  const parts = [`${write.added.length} chapters added`, `${write.updated.length} replaced`, `${write.unchanged} unchanged`];
  if (write.kept.length > 0) parts.push(`${write.kept.length} kept (the file's text was empty or under a tenth of the old)`);
  const what = write.added.length + write.updated.length === 0 ? 'already up to date' : 'updated';
  return `${what}: the story ${write.storyId} ("${write.title}"): ${parts.join(', ')}`;
}
