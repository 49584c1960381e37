/**
 * Restoring a library archive (docs/decisions.md, "Library archive"), one bounded step at a
 * time. Each step hands its row writes, its progress and the state to resume from to a
 * {@link RestoreCommit} (the job runner's `commit`: one transaction for all three), so a restart
 * resumes after the last committed step and no committed step is done twice. Images are files,
 * not rows: a step stores them before it commits, and a repeated image step finds them stored.
 *
 * Order: the archive is checked as a whole first (./reader.ts: nothing is written from an
 * archive it refuses), then images (so a row never names a file that is not there yet), then
 * authors, series, tags, stories ({@link STORIES_PER_STEP} per transaction), reading
 * progress and shelves (after the stories they hold; an archive without shelves has none). A bad entry (invalid JSON, a schema violation, an image that is not one) is skipped
 * and reported in `errors`; it never stops the others.
 */
import type { Db, Tx } from '../db/open.js';
import { bookkeepingTransaction } from '../db/bookkeeping.js';
import { writeTransaction } from '../db/transaction.js';
import { releaseImages } from '../images/image-changes.js';
import { storedImagePaths } from '../images/inline-images.js';
import type { ImageStore } from '../images/store.js';
import { deriveStoryText } from '../html/story-text.js';
import { assembleWork, deriveChapter } from '../stories/chapter-text.js';
import { ArchiveAuthor, ArchiveProgress, ArchiveSeries, ArchiveShelf, ArchiveStory, ArchiveTag } from '../schemas/archive.js';
import type { TSchema } from '@sinclair/typebox';
import { checkEntry } from './entry-check.js';
import { ArchiveReader, DEFAULT_LIMITS, type ArchiveLimits, type IndexedEntry, type ListName } from './reader.js';
import { restoreAuthor, restoreProgress, restoreSeries, restoreShelf, restoreStory, restoreTag, type IdMap, type PreparedStory, type RowOutcome } from './restore-rows.js';

/** Stories per write transaction: ~200 × 30 KB of HTML derived before it opens, a few ms of lock. */
export const STORIES_PER_STEP = 200;
/** List lines (authors, series, tags, progress) per write transaction. */
const LINES_PER_STEP = 500;
/** Images per step: each is streamed, checked and fsynced. */
const IMAGES_PER_STEP = 50;

const PHASES = ['images', 'authors', 'series', 'tags', 'stories', 'progress', 'shelves', 'done'] as const;
export type RestorePhase = (typeof PHASES)[number];

/** Where a restore stands: the job row's `state` (JSON). Counts and errors are the job's own. */
export interface RestoreState {
  phase: RestorePhase;
  /** The next entry (images, stories) or line (lists) of the phase. */
  next: number;
  /** Archive ids merged into a library row of the same name. */
  ids: IdMap;
}

export function initialRestoreState(): RestoreState {
  return { phase: 'images', next: 0, ids: { authors: {}, series: {} } };
}

export interface RestoreError {
  file: string;
  error: string;
}

/** One step's outcome, as the job runner's `commit` takes it. */
export interface RestoreStep {
  state: RestoreState;
  done?: number;
  errors?: readonly RestoreError[];
}

/**
 * Commits a step: `write` and the step's progress and state in one transaction (the job
 * runner's `JobContext.commit`, src/jobs/runner.ts). Throws when the job was stopped.
 */
export type RestoreCommit = (step: RestoreStep, write?: (tx: Tx) => void) => void;

export interface RestoreDeps {
  db: Db;
  images: ImageStore;
}

const LIST_OF: Partial<Record<RestorePhase, ListName>> = {
  authors: 'authors.jsonl',
  series: 'series.jsonl',
  tags: 'tags.jsonl',
  progress: 'progress.jsonl',
  shelves: 'shelves.jsonl',
};

/** Thrown to roll a dry run back. */
class DryRun extends Error {}

/**
 * One restore of one archive file. `open()` checks the whole archive (throws `ArchiveRejected`
 * before anything is written); then `step()` until the state's phase is `done`; `close()` at
 * the end or when giving up.
 */
export class ArchiveRestore {
  private constructor(
    private readonly deps: RestoreDeps,
    private readonly reader: ArchiveReader,
  ) {}

  static async open(deps: RestoreDeps, file: string, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<ArchiveRestore> {
    return new ArchiveRestore(deps, await ArchiveReader.open(file, limits));
  }

  /** Items the restore will go through (stories and images from the archive's index, the rest from its manifest). */
  get total(): number {
    const counts = this.reader.manifest.counts;
    return this.reader.stories.length + this.reader.images.length + counts.authors + counts.series + counts.tags + counts.progress + (counts.shelves ?? 0);
  }

  close(): void {
    this.reader.close();
  }

  /**
   * Runs every step to the end with a commit of its own (`writeTransaction`), adding up what the
   * job runner would record: for tests and tools that run a restore without a job.
   */
  async runToEnd(state = initialRestoreState()): Promise<{ state: RestoreState; done: number; failed: number; errors: RestoreError[] }> {
    const outcome = { state, done: 0, failed: 0, errors: [] as RestoreError[] };
    const commit: RestoreCommit = (step, write) => {
      if (write !== undefined) writeTransaction(this.deps.db, write);
      outcome.state = step.state;
      outcome.done += step.done ?? 0;
      outcome.failed += step.errors?.length ?? 0;
      outcome.errors.push(...(step.errors ?? []));
    };
    while (outcome.state.phase !== 'done') await this.step(outcome.state, commit);
    return outcome;
  }

  /** Does the next chunk of work and commits it, with the state to resume from, through `commit`. */
  async step(state: RestoreState, commit: RestoreCommit): Promise<void> {
    const errors: RestoreError[] = [];
    if (state.phase === 'images' && state.next === 0) {
      for (const name of this.reader.ignored.slice(0, 100)) errors.push({ file: name, error: 'not part of the archive format; ignored' });
    }
    switch (state.phase) {
      case 'images':
        return this.restoreImages(state, errors, commit);
      case 'stories':
        return this.restoreStories(state, errors, commit);
      case 'done':
        return undefined;
      default:
        return this.restoreLines(state, errors, commit);
    }
  }

  /** The state with `next` items of this phase done, moved on to the next phase at its end. */
  private after(state: RestoreState, next: number, phaseLength: number, ids = state.ids): RestoreState {
    if (next < phaseLength) return { phase: state.phase, next, ids };
    return { phase: PHASES[PHASES.indexOf(state.phase) + 1] ?? 'done', next: 0, ids };
  }

  private async restoreImages(state: RestoreState, errors: RestoreError[], commit: RestoreCommit): Promise<void> {
    const batch = this.reader.images.slice(state.next, state.next + IMAGES_PER_STEP);
    let done = 0;
    for (const entry of batch) {
      try {
        await this.deps.images.restoreImage(entry.name.slice('images/'.length), await this.reader.openStream(entry));
        done += 1;
      } catch (error) {
        errors.push({ file: entry.name, error: describe(error) });
      }
    }
    commit({ state: this.after(state, state.next + batch.length, this.reader.images.length), done, errors });
  }

  /** Authors, series, tags, progress or shelves: up to {@link LINES_PER_STEP} lines in one transaction. */
  private async restoreLines(state: RestoreState, errors: RestoreError[], commit: RestoreCommit): Promise<void> {
    const listName = LIST_OF[state.phase] as ListName;
    const entry = this.reader.lists.get(listName);
    if (entry === undefined) return commit({ state: this.after(state, 0, 0), errors });
    const parsed: { line: number; value: unknown }[] = [];
    let reachedEnd = true;
    let lastLine = state.next - 1;
    for await (const { number, text } of this.reader.lines(entry, state.next)) {
      if (parsed.length === LINES_PER_STEP) {
        reachedEnd = false;
        break;
      }
      lastLine = number;
      const where = `${listName}:${number + 1}`;
      if (text === undefined) {
        errors.push({ file: where, error: `the line is longer than ${this.reader.limits.maxLineBytes} bytes` });
        continue;
      }
      const value = parseChecked(text, SCHEMA_OF[listName]);
      if (typeof value === 'string') errors.push({ file: where, error: value });
      else parsed.push({ line: number, value: value.ok });
    }
    if (listName === 'authors.jsonl') {
      for (const { line, value } of parsed) {
        const avatar = (value as ArchiveAuthor).avatarImagePath;
        if (avatar !== null) this.pendingAvatars.set(avatar, (await this.presentImage(errors, `${listName}:${line + 1}`, avatar)) !== null);
      }
    }
    const items = parsed.map(({ line, value }) => ({ where: `${listName}:${line + 1}`, value }));
    // A list's length is only known at its end: `next` past every line moves to the next phase.
    const next = reachedEnd ? Number.MAX_SAFE_INTEGER : lastLine + 1;
    await this.applyBatch(state, next, Number.MAX_SAFE_INTEGER, errors, commit, items, (tx, value): Effect => {
      if (listName === 'progress.jsonl') return restoreProgress(tx, value as ArchiveProgress) ? { notes: [] } : { notes: ['its story is not in the library'] };
      if (listName === 'shelves.jsonl') {
        const shelf = restoreShelf(tx, value as ArchiveShelf);
        return { notes: shelf.notes, countsDone: shelf.restored };
      }
      const outcome: RowOutcome =
        listName === 'authors.jsonl'
          ? restoreAuthor(tx, withImage(value as ArchiveAuthor, this.pendingAvatars))
          : listName === 'series.jsonl'
            ? restoreSeries(tx, value as ArchiveSeries)
            : restoreTag(tx, value as ArchiveTag);
      const id = (value as { id: string }).id;
      if (outcome.kind === 'kept-name') return { notes: [outcome.note] };
      if (outcome.kind === 'written') return { notes: [], released: outcome.released };
      return listName === 'tags.jsonl' ? { notes: [] } : { notes: [], mapped: { kind: listName === 'authors.jsonl' ? 'authors' : 'series', from: id, to: outcome.to } };
    });
    this.pendingAvatars.clear();
  }

  /** Avatars checked before the transaction (the store's checks are async): path -> present. */
  private readonly pendingAvatars = new Map<string, boolean>();

  private async restoreStories(state: RestoreState, errors: RestoreError[], commit: RestoreCommit): Promise<void> {
    const batch = this.reader.stories.slice(state.next, state.next + STORIES_PER_STEP);
    const prepared: PreparedStory[] = [];
    for (const entry of batch) {
      const story = await this.readStory(errors, entry);
      if (story === undefined) continue;
      for (const relPath of storedImagePaths(story.contentHtml)) {
        if (!(await this.hasImage(relPath))) errors.push({ file: entry.name, error: `its text shows the image ${relPath}, which is in neither the archive nor the library` });
      }
      // Sanitizing and deriving is the costly part: done here, before the transaction opens,
      // one story per turn of the event loop so that requests are served in between.
      // With chapters, they are the text and the whole work is assembled from them (not sanitized twice).
      const chapters = story.chapters?.map((chapter) => deriveChapter(chapter));
      prepared.push({
        story,
        text: chapters === undefined ? deriveStoryText(story.contentHtml) : assembleWork(chapters),
        coverPath: await this.presentImage(errors, entry.name, story.coverPath),
        ...(chapters === undefined ? {} : { chapters }),
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    const items = prepared.map((item) => ({ where: `stories/${item.story.id}.json`, value: item }));
    await this.applyBatch(state, state.next + batch.length, this.reader.stories.length, errors, commit, items, (tx, item, ids) => restoreStory(tx, item, ids));
  }

  /**
   * Commits a batch. Its effects (notes, merged ids, replaced images) are learnt first from a dry
   * run: the same writes in a transaction that is rolled back, so the step's progress, committed
   * with the writes in one transaction, is exact. An item that fails in the dry run (a
   * constraint no schema can see, say) is reported and left out: one bad row never stops the
   * others. After the commit, replaced covers and avatars that nothing names go to the trash.
   */
  private async applyBatch<T>(
    state: RestoreState,
    next: number,
    phaseLength: number,
    errors: RestoreError[],
    commit: RestoreCommit,
    items: readonly { where: string; value: T }[],
    apply: (tx: Tx, value: T, ids: IdMap) => Effect,
  ): Promise<void> {
    const ids: IdMap = { authors: { ...state.ids.authors }, series: { ...state.ids.series } };
    const whole = this.dryRun((tx) => items.map(({ value }) => apply(tx, value, ids)));
    const outcomes = whole instanceof Error ? items.map(({ value }) => this.dryRun((tx) => apply(tx, value, ids))) : whole;
    const good: T[] = [];
    const released: (string | null | undefined)[] = [];
    let done = 0;
    outcomes.forEach((effect, index) => {
      const { where, value } = items[index] as { where: string; value: T };
      if (effect instanceof Error) {
        errors.push({ file: where, error: describe(effect) });
        return;
      }
      good.push(value);
      for (const note of effect.notes) errors.push({ file: where, error: note });
      if (effect.notes.length === 0 || effect.countsDone === true) done += 1;
      if (effect.mapped !== undefined) ids[effect.mapped.kind][effect.mapped.from] = effect.mapped.to;
      released.push(effect.released);
    });
    const write = good.length === 0 ? undefined : (tx: Tx) => good.forEach((value) => apply(tx, value, ids));
    commit({ state: this.after(state, next, phaseLength, ids), done, errors }, write);
    await releaseImages(this.deps.db, this.deps.images, released);
  }

  /**
   * Runs `write` in a transaction that is always rolled back (a bookkeeping one: no search sync
   * for writes that will not stay; the lock is waited for, as by every write): its result, or
   * the error it threw.
   */
  private dryRun<R>(write: (tx: Tx) => R): R | Error {
    let result: R | undefined;
    try {
      bookkeepingTransaction(this.deps.db, (tx) => {
        result = write(tx);
        throw new DryRun();
      });
    } catch (error) {
      if (error instanceof DryRun) return result as R;
      return error instanceof Error ? error : new Error(String(error));
    }
    return new Error('the dry run did not roll back');
  }

  private async readStory(errors: RestoreError[], entry: IndexedEntry): Promise<ArchiveStory | undefined> {
    let text: string;
    try {
      text = (await this.reader.readBuffer(entry, this.reader.limits.maxStoryBytes)).toString('utf8');
    } catch (error) {
      errors.push({ file: entry.name, error: describe(error) });
      return undefined;
    }
    const value = parseChecked(text, ArchiveStory);
    if (typeof value === 'string') {
      errors.push({ file: entry.name, error: value });
      return undefined;
    }
    const story = value.ok as ArchiveStory;
    if (entry.name !== `stories/${story.id}.json`) {
      errors.push({ file: entry.name, error: `its id ${story.id} is not the one its name gives` });
      return undefined;
    }
    return story;
  }

  /** Whether the store has the image `relPath` now (restored from the archive or already there). */
  private async hasImage(relPath: string): Promise<boolean> {
    try {
      return (await this.deps.images.locateImage(relPath)).exists;
    } catch {
      return false;
    }
  }

  /** The path when the store has that image now (restored from the archive or already there), else null and a note. */
  private async presentImage(errors: RestoreError[], file: string, relPath: string | null): Promise<string | null> {
    if (relPath === null) return null;
    if (await this.hasImage(relPath)) return relPath;
    errors.push({ file, error: `its image ${relPath} is in neither the archive nor the library; it is restored without it` });
    return null;
  }
}

/** What one applied item did, applied to the state once its transaction has committed. */
interface Effect {
  /** Problems to report; an item with notes is not counted as done unless `countsDone`. */
  notes: string[];
  /** Restored despite its notes (a story without its missing author, say). */
  countsDone?: boolean;
  released?: string | null | undefined;
  mapped?: { kind: keyof IdMap; from: string; to: string };
}

const SCHEMA_OF: Record<ListName, TSchema> = {
  'authors.jsonl': ArchiveAuthor,
  'series.jsonl': ArchiveSeries,
  'tags.jsonl': ArchiveTag,
  'progress.jsonl': ArchiveProgress,
  'shelves.jsonl': ArchiveShelf,
};

/** The author with its avatar cleared when the store does not have it. */
function withImage(author: ArchiveAuthor, avatars: ReadonlyMap<string, boolean>): ArchiveAuthor {
  if (author.avatarImagePath === null || avatars.get(author.avatarImagePath) === true) return author;
  return { ...author, avatarImagePath: null };
}

/** The parsed, schema-checked value, or the message saying why it is not one. */
function parseChecked(text: string, schema: TSchema): { ok: unknown } | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  const problem = checkEntry(schema, value) ?? ruleProblem(value as Record<string, unknown>);
  return problem === undefined ? { ok: value } : `invalid: ${problem}`;
}

/** What the API's services refuse beyond the schema: blank names and titles, ids not in lower case. */
function ruleProblem(value: Record<string, unknown>): string | undefined {
  for (const field of ['name', 'title']) {
    const text = value[field];
    if (typeof text === 'string' && text.trim() === '') return `${field}: must not be blank`;
  }
  for (const field of ['id', 'storyId', 'authorId', 'seriesId']) {
    const id = value[field];
    if (typeof id === 'string' && id !== id.toLowerCase()) return `${field}: must be a lowercase UUID`;
  }
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const details = (error as { details?: Record<string, string> }).details;
    return details === undefined ? error.message : `${error.message}: ${Object.values(details).join('; ')}`;
  }
  return String(error);
}
