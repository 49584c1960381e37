/**
 * Writing a source work (docs/decisions.md, "Sources"): a new story from a whole otwarchive work
 * (every chapter with its id, typed tags, every author, dates, status, language, series and
 * part), with its `story_sources` row (followed, its first check spread over the interval) and
 * its first `story_updates` row, in one write transaction; and bringing a held story up to its
 * source again (a refresh), by the plan of ./source-merge.ts. The chapters come sanitized from the
 * extraction thread (./source-text.ts); the pictures of the chapters written are stored before
 * the transaction (./images.ts) and removed again if it fails.
 */
import type { Db, Tx } from '../../db/open.js';
import { writeTransaction } from '../../db/transaction.js';
import { htmlToPlainText } from '../../html/plain-text.js';
import { commitImageChange } from '../../images/image-changes.js';
import { inlineImagePaths, releasedInlineImages, storedImageOfSource } from '../../images/inline-images.js';
import type { ImageStore } from '../../images/store.js';
import type { ImportAllowList } from '../../lib/allow-hosts.js';
import { nextUpdatedAt, nowIso } from '../../lib/clock.js';
import { cleanName } from '../../lib/names.js';
import { LINKED_NAME_MAX, STORY_TITLE_MAX } from '../../schemas/story.js';
import type { TagKind } from '../../schemas/tag.js';
import { authorNamesOf, tagsOf } from '../story-input.js';
import { planMerge, type MergePlan } from './source-merge.js';
import { insertSource, insertUpdate, recordCheck, type UpdateDetails } from './source-rows.js';
import type { SourceWork } from './source-work.js';
import { appendChapters, reassembleStory } from '../../stories/chapter-service.js';
import { loadChapters, markChapterGone, updateChapter } from '../../stories/chapter-repository.js';
import type { ChapterText } from '../../stories/chapter-text.js';
import { setChapters, type StoryInput } from '../../stories/input.js';
import { findStoryStamp, updateStory } from '../../stories/repository.js';
import { insertNewStory, storyNotFound } from '../../stories/service.js';
import { placeStoredImages } from '../image-placeholder.js';
import { downloadImages } from './images.js';
import type { PreparedWork } from './source-text.js';

/** A summary is a teaser, not a copy of the text (as an ordinary page's: "URL import"). */
const SUMMARY_MAX = 1000;
const HOUR_MS = 60 * 60 * 1000;

export interface SourceWriteDeps {
  db: Db;
  images: ImageStore;
  allow: ImportAllowList;
  /** `SOURCE_CHECK_INTERVAL_HOURS`; 0: no scheduled checks. */
  checkIntervalHours: number;
}

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text.trim() : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** The archive prints dates; the library stores times: a date is midnight UTC. */
function asTime(date: string | null): string | null {
  return date === null ? null : `${date}T00:00:00.000Z`;
}

/** When a followed work is checked next: complete works are not; others spread over the interval. */
export function nextCheckAt(deps: Pick<SourceWriteDeps, 'checkIntervalHours'>, status: SourceWork['status'], now: number, first: boolean): string | null {
  if (deps.checkIntervalHours === 0 || status === 'complete') return null;
  const interval = deps.checkIntervalHours * HOUR_MS;
  // The first check falls anywhere in the interval, so a series imported at once is not checked at once.
  const offset = first ? Math.floor(Math.random() * interval) : interval;
  return new Date(now + offset).toISOString();
}

/** The story fields of a work (without its chapters), fitted to the story rules as a file's are (../story-input.ts). */
function workInput(work: SourceWork, series: { name: string; part: number } | undefined): StoryInput & { title: string } {
  const [author, ...coauthorNames] = authorNamesOf(work.authors);
  const tags = tagsOf(work.tags) ?? { names: [], kinds: new Map<string, TagKind>() };
  const summary = work.summary === null ? null : cut(htmlToPlainText(work.summary), SUMMARY_MAX);
  return {
    title: cut(cleanName(work.title), STORY_TITLE_MAX) || 'Untitled',
    author: author === undefined ? null : { name: author },
    coauthorNames,
    series: series === undefined ? null : { name: cut(cleanName(series.name), LINKED_NAME_MAX) },
    volume: series?.part ?? null,
    tagNames: tags.names,
    tagKinds: tags.kinds,
    summary: summary === '' ? null : summary,
    sourceUrl: work.url,
    status: work.status,
    publishedAt: asTime(work.publishedAt),
    sourceUpdatedAt: asTime(work.sourceUpdatedAt),
    language: work.language,
  };
}

/** The pictures stored for the chapters an import or refresh writes. */
interface Placement {
  /** Placeholder path (`inline/<file>`) to the stored picture's. */
  stored: Map<string, string>;
  /** Placeholder URLs whose picture could not be stored: their `<img>` is removed. */
  refused: string[];
}

/** Stores the pictures `chapters` name (their placeholders, ./source-text.ts). */
async function storePictures(deps: SourceWriteDeps, prepared: PreparedWork, chapters: readonly ChapterText[]): Promise<Placement> {
  const named = new Set(chapters.flatMap((chapter) => inlineImagePaths(chapter.contentHtml)));
  const wanted = prepared.images.filter((image) => named.has(storedImageOfSource(image.placeholder) as string));
  const stored = await downloadImages(deps.images, wanted.map((image) => image.sources), deps.allow);
  const placement: Placement = { stored: new Map(), refused: [] };
  wanted.forEach((image, n) => {
    const relPath = stored[n];
    if (relPath === undefined) placement.refused.push(image.placeholder);
    else placement.stored.set(storedImageOfSource(image.placeholder) as string, relPath);
  });
  return placement;
}

async function discard(deps: SourceWriteDeps, placement: Placement): Promise<void> {
  for (const relPath of placement.stored.values()) await deps.images.discardUpload(relPath);
}

/** Chapter `index` of the work as stored: sanitized in the extraction thread, its pictures placed here. */
function chapterOf(prepared: PreparedWork, index: number, placement: Placement): ChapterText {
  const chapter = prepared.chapters[index] as ChapterText;
  return { ...chapter, contentHtml: placeStoredImages(chapter.contentHtml, placement.refused, placement.stored) };
}

/** A new story ready to be written: its pictures stored, its text sanitized. */
export interface PreparedStory {
  /** Inserts the story, its source row and its first update in the caller's write transaction; returns its id. */
  write(tx: Tx): string;
  /** Removes the pictures stored for it, when the write failed or never happened. */
  discard(): Promise<void>;
}

/**
 * A new story from `work`, following its source, with its first update logged (`origin`
 * `import`), made ready for a write transaction (the series import commits it with its job's
 * progress). `seriesUrl` picks which of the work's series it is filed under (a series import's
 * own); the first otherwise.
 */
export async function prepareWorkStory(deps: SourceWriteDeps, work: SourceWork, prepared: PreparedWork, seriesUrl?: string): Promise<PreparedStory> {
  const series = work.series.find((one) => one.url === seriesUrl) ?? work.series[0];
  const input = workInput(work, series);
  const stored = await storePictures(deps, prepared, prepared.chapters);
  const discardStored = () => discard(deps, stored);
  setChapters(input, prepared.chapters.map((_chapter, index) => chapterOf(prepared, index, stored)));
  return {
    discard: discardStored,
    write: (tx) => {
      const now = nowIso();
      const id = insertNewStory(tx, input, input.title, undefined, now);
      insertSource(tx, {
        storyId: id,
        engine: 'otwarchive',
        url: work.url,
        uid: work.uid,
        site: work.site,
        follow: true,
        nextCheckAt: nextCheckAt(deps, work.status, Date.parse(now), true),
        lastCheckedAt: now,
        createdAt: now,
      });
      insertUpdate(tx, { storyId: id, at: now, origin: 'import', sourceUrl: work.url, details: { added: work.chapters.map((chapter) => chapter.title), updated: [], kept: [], gone: [] } });
      return id;
    },
  };
}

/** {@link prepareWorkStory} written at once; returns the new story's id. */
export async function createFromWork(deps: SourceWriteDeps, work: SourceWork, prepared: PreparedWork, seriesUrl?: string): Promise<string> {
  const story = await prepareWorkStory(deps, work, prepared, seriesUrl);
  try {
    return writeTransaction(deps.db, story.write);
  } catch (error) {
    await story.discard();
    throw error;
  }
}

export interface RefreshOutcome {
  result: 'updated' | 'unchanged';
  addedChapters: number;
  updatedChapters: number;
  keptChapters: number;
  goneChapters: number;
}


/**
 * Brings story `storyId` up to `work` (docs/decisions.md, "Sources"): new chapters appended,
 * changed ones replaced (unless refused as a stub: kept), gone ones marked; status, dates and
 * the word count follow the source. The update is logged when anything changed; the check is
 * recorded either way. Pictures of replaced text that no chapter names any more are released.
 */
export async function refreshFromWork(deps: SourceWriteDeps, storyId: string, work: SourceWork, prepared: PreparedWork, origin: 'refresh' | 'schedule'): Promise<RefreshOutcome> {
  const held = loadChapters(deps.db, storyId);
  if (findStoryStamp(deps.db, storyId) === undefined) throw storyNotFound(storyId);
  const plan: MergePlan = planMerge(
    held.map((chapter) => ({ position: chapter.index, title: chapter.title, sourceKey: chapter.sourceKey, contentPlain: chapter.contentPlain, sourceGoneAt: chapter.sourceGoneAt })),
    prepared.chapters.map((chapter) => ({ title: chapter.title, sourceKey: chapter.sourceKey ?? '', plainText: chapter.contentPlain })),
  );
  const written = [...plan.added, ...plan.updated.map((one) => one.index), ...plan.returned.map((one) => one.index)];
  const stored = await storePictures(deps, prepared, written.map((index) => prepared.chapters[index] as ChapterText));
  const changed = plan.added.length + plan.updated.length + plan.gone.length + plan.returned.length > 0;
  try {
    const added = plan.added.map((index) => chapterOf(prepared, index, stored));
    const updated = plan.updated.map(({ position, index }) => ({ position, chapter: chapterOf(prepared, index, stored) }));
    const returned = plan.returned.map(({ position, index }) => ({ position, chapter: chapterOf(prepared, index, stored) }));
    const now = nowIso();
    return await commitImageChange(deps.db, deps.images, {}, (tx) => {
      const stamp = findStoryStamp(tx, storyId);
      if (stamp === undefined) throw storyNotFound(storyId);
      const current = new Map(loadChapters(tx, storyId).map((chapter) => [chapter.index, chapter]));
      const title = (position: number) => current.get(position)?.title ?? `Chapter ${position}`;
      const before = updated.map(({ position }) => current.get(position)?.contentHtml ?? '').join('\n');
      const details: UpdateDetails = {
        added: added.map((chapter) => chapter.title),
        updated: updated.map(({ chapter }) => chapter.title),
        kept: plan.kept.map(({ position }) => title(position)),
        gone: plan.gone.map(title),
      };
      for (const { position, chapter } of [...updated, ...returned]) updateChapter(tx, storyId, position, chapter, now);
      for (const position of plan.gone) markChapterGone(tx, storyId, position, now);
      appendChapters(tx, storyId, added, now);
      if (changed) reassembleStory(tx, storyId);
      updateStory(tx, storyId, {
        status: work.status,
        sourceUpdatedAt: asTime(work.sourceUpdatedAt),
        ...(changed ? { updatedAt: nextUpdatedAt(stamp.updatedAt) } : {}),
      });
      if (changed || plan.kept.length > 0) insertUpdate(tx, { storyId, at: now, origin, sourceUrl: work.url, details });
      recordCheck(tx, storyId, { at: now, nextCheckAt: nextCheckAt(deps, work.status, Date.parse(now), false), error: null });
      const after = updated.map(({ chapter }) => chapter.contentHtml).join('\n');
      return {
        result: {
          result: changed ? 'updated' : 'unchanged',
          addedChapters: added.length,
          updatedChapters: updated.length,
          keptChapters: plan.kept.length,
          goneChapters: plan.gone.length,
        },
        released: releasedInlineImages(before, after),
      };
    });
  } catch (error) {
    await discard(deps, stored);
    throw error;
  }
}

/**
 * A failed check: counted, its message kept, the next one pushed back: two intervals after the
 * first failure in a row, four after the second, at most a week (`failures` is the count before this one).
 */
export function recordFailedCheck(deps: Pick<SourceWriteDeps, 'db' | 'checkIntervalHours'>, storyId: string, failures: number, message: string): void {
  const now = Date.now();
  const base = deps.checkIntervalHours === 0 ? null : Math.min(deps.checkIntervalHours * HOUR_MS * 2 ** Math.min(failures + 1, 3), 7 * 24 * HOUR_MS);
  writeTransaction(deps.db, (tx) => recordCheck(tx, storyId, { at: new Date(now).toISOString(), nextCheckAt: base === null ? null : new Date(now + base).toISOString(), error: message.slice(0, 500) }));
}
