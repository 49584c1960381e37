/**
 * Restoring a library archive (docs/decisions.md, "Library archive"), one bounded step at a
 * time: `step(state)` does the next chunk of work and returns the state to resume from, so a
 * job runner can store it after every step and a restart continues where it stopped. Every step
 * is idempotent (rows are upserted by id, images kept when already stored), so repeating the
 * step a crash interrupted is harmless.
 *
 * Order: the archive is checked as a whole first (./reader.ts: nothing is written from an
 * archive it refuses), then images (so a row never names a file that is not there yet), then
 * authors, series, tags, stories ({@link STORIES_PER_STEP} per transaction) and reading
 * progress. A bad entry (invalid JSON, a schema violation, an image that is not one) is skipped
 * and reported in `errors`; it never stops the others.
 */
import type { Db, Tx } from '../db/open.js';
import { bookkeepingTransaction, writeTransaction } from '../db/transaction.js';
import { releaseImages } from '../images/image-changes.js';
import type { ImageStore } from '../images/store.js';
import { deriveStoryText } from '../html/story-text.js';
import { ArchiveAuthor, ArchiveProgress, ArchiveSeries, ArchiveStory, ArchiveTag } from '../schemas/archive.js';
import type { TSchema } from '@sinclair/typebox';
import { checkEntry } from './entry-check.js';
import { ArchiveReader, DEFAULT_LIMITS, type ArchiveLimits, type IndexedEntry, type ListName } from './reader.js';
import { restoreAuthor, restoreProgress, restoreSeries, restoreStory, restoreTag, type IdMap, type PreparedStory, type RowOutcome } from './restore-rows.js';

/** Stories per write transaction: ~200 × 30 KB of HTML derived before it opens, a few ms of lock. */
export const STORIES_PER_STEP = 200;
/** List lines (authors, series, tags, progress) per write transaction. */
const LINES_PER_STEP = 500;
/** Images per step: each is streamed, checked and fsynced. */
const IMAGES_PER_STEP = 50;
/** Errors kept in the report; the rest are counted in `failed` only. */
export const MAX_REPORTED_ERRORS = 1000;

const PHASES = ['images', 'authors', 'series', 'tags', 'stories', 'progress', 'done'] as const;
export type RestorePhase = (typeof PHASES)[number];

/** Where a restore stands; JSON, for the job row. */
export interface RestoreState {
  phase: RestorePhase;
  /** The next entry (images, stories) or line (lists) of the phase. */
  next: number;
  ids: IdMap;
  total: number;
  done: number;
  failed: number;
  errors: { file: string; error: string }[];
}

export function initialRestoreState(): RestoreState {
  return { phase: 'images', next: 0, ids: { authors: {}, series: {} }, total: 0, done: 0, failed: 0, errors: [] };
}

export interface RestoreDeps {
  db: Db;
  images: ImageStore;
}

const LIST_OF: Partial<Record<RestorePhase, ListName>> = { authors: 'authors.jsonl', series: 'series.jsonl', tags: 'tags.jsonl', progress: 'progress.jsonl' };

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
    return this.reader.stories.length + this.reader.images.length + counts.authors + counts.series + counts.tags + counts.progress;
  }

  close(): void {
    this.reader.close();
  }

  /** Runs every step to the end (the CLI and the fallback without a job runner). */
  async runToEnd(state = initialRestoreState(), afterStep?: (state: RestoreState) => void | Promise<void>): Promise<RestoreState> {
    let current = state;
    while (current.phase !== 'done') {
      current = await this.step(current);
      await afterStep?.(current);
    }
    return current;
  }

  /** Does the next chunk of work and returns the state after it (a new object). */
  async step(previous: RestoreState): Promise<RestoreState> {
    const state: RestoreState = structuredClone(previous);
    if (state.phase === 'images' && state.next === 0 && state.done === 0) {
      state.total = this.total;
      for (const name of this.reader.ignored.slice(0, 100)) this.report(state, name, 'not part of the archive format; ignored');
    }
    switch (state.phase) {
      case 'images':
        await this.restoreImages(state);
        break;
      case 'stories':
        await this.restoreStories(state);
        break;
      case 'done':
        return state;
      default:
        await this.restoreLines(state);
    }
    return state;
  }

  private advance(state: RestoreState): void {
    state.phase = PHASES[PHASES.indexOf(state.phase) + 1] ?? 'done';
    state.next = 0;
  }

  private report(state: RestoreState, file: string, error: string): void {
    state.failed += 1;
    if (state.errors.length < MAX_REPORTED_ERRORS) state.errors.push({ file, error });
  }

  private async restoreImages(state: RestoreState): Promise<void> {
    const batch = this.reader.images.slice(state.next, state.next + IMAGES_PER_STEP);
    for (const entry of batch) {
      try {
        await this.deps.images.restoreImage(entry.name.slice('images/'.length), await this.reader.openStream(entry));
        state.done += 1;
      } catch (error) {
        this.report(state, entry.name, describe(error));
      }
    }
    state.next += batch.length;
    if (state.next >= this.reader.images.length) this.advance(state);
  }

  /** Authors, series, tags or progress: up to {@link LINES_PER_STEP} lines in one transaction. */
  private async restoreLines(state: RestoreState): Promise<void> {
    const listName = LIST_OF[state.phase] as ListName;
    const entry = this.reader.lists.get(listName);
    if (entry === undefined) return this.advance(state);
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
        this.report(state, where, `the line is longer than ${this.reader.limits.maxLineBytes} bytes`);
        continue;
      }
      const value = parseChecked(text, SCHEMA_OF[listName]);
      if (typeof value === 'string') this.report(state, where, value);
      else parsed.push({ line: number, value: value.ok });
    }
    if (listName === 'authors.jsonl') {
      for (const { line, value } of parsed) {
        const avatar = (value as ArchiveAuthor).avatarImagePath;
        if (avatar !== null) this.pendingAvatars.set(avatar, (await this.presentImage(state, `${listName}:${line + 1}`, avatar)) !== null);
      }
    }
    const transaction = listName === 'progress.jsonl' ? bookkeepingTransaction : writeTransaction;
    const items = parsed.map(({ line, value }) => ({ where: `${listName}:${line + 1}`, value }));
    await this.applyBatch(state, items, transaction, (tx, value): Effect => {
      if (listName === 'progress.jsonl') return restoreProgress(tx, value as ArchiveProgress) ? { notes: [] } : { notes: ['its story is not in the library'] };
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
    state.next = lastLine + 1;
    if (reachedEnd) this.advance(state);
  }

  /** Avatars checked before the transaction (the store's checks are async): path -> present. */
  private readonly pendingAvatars = new Map<string, boolean>();

  private async restoreStories(state: RestoreState): Promise<void> {
    const batch = this.reader.stories.slice(state.next, state.next + STORIES_PER_STEP);
    const prepared: PreparedStory[] = [];
    for (const entry of batch) {
      const story = await this.readStory(state, entry);
      if (story === undefined) continue;
      // Sanitizing and deriving is the costly part: done here, before the transaction opens,
      // one story per turn of the event loop so that requests are served in between.
      prepared.push({ story, text: deriveStoryText(story.contentHtml), coverPath: await this.presentImage(state, entry.name, story.coverPath) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    const items = prepared.map((item) => ({ where: `stories/${item.story.id}.json`, value: item }));
    await this.applyBatch(state, items, writeTransaction, (tx, item) => restoreStory(tx, item, state.ids));
    state.next += batch.length;
    if (state.next >= this.reader.stories.length) this.advance(state);
  }

  /**
   * Applies a batch in one transaction, then its effects to the state (so a rolled-back batch
   * counts nothing) and releases the images it replaced. Should the batch fail as a whole (a
   * constraint no schema can see, say), each item is applied alone and the ones that still fail
   * are reported: one bad row never stops the others.
   */
  private async applyBatch<T>(
    state: RestoreState,
    items: readonly { where: string; value: T }[],
    transaction: typeof writeTransaction,
    apply: (tx: Tx, value: T) => Effect,
  ): Promise<void> {
    let outcomes: { where: string; effect: Effect | Error }[];
    try {
      outcomes = transaction(this.deps.db, (tx) => items.map(({ where, value }) => ({ where, effect: apply(tx, value) })));
    } catch {
      outcomes = items.map(({ where, value }) => {
        try {
          return { where, effect: transaction(this.deps.db, (tx) => apply(tx, value)) };
        } catch (error) {
          return { where, effect: error as Error };
        }
      });
    }
    const released: (string | null | undefined)[] = [];
    for (const { where, effect } of outcomes) {
      if (effect instanceof Error) {
        this.report(state, where, describe(effect));
        continue;
      }
      for (const note of effect.notes) this.report(state, where, note);
      if (effect.notes.length === 0 || effect.countsDone === true) state.done += 1;
      if (effect.mapped !== undefined) state.ids[effect.mapped.kind][effect.mapped.from] = effect.mapped.to;
      released.push(effect.released);
    }
    await releaseImages(this.deps.db, this.deps.images, released);
  }

  private async readStory(state: RestoreState, entry: IndexedEntry): Promise<ArchiveStory | undefined> {
    let text: string;
    try {
      text = (await this.reader.readBuffer(entry, this.reader.limits.maxStoryBytes)).toString('utf8');
    } catch (error) {
      this.report(state, entry.name, describe(error));
      return undefined;
    }
    const value = parseChecked(text, ArchiveStory);
    if (typeof value === 'string') {
      this.report(state, entry.name, value);
      return undefined;
    }
    const story = value.ok as ArchiveStory;
    if (entry.name !== `stories/${story.id}.json`) {
      this.report(state, entry.name, `its id ${story.id} is not the one its name gives`);
      return undefined;
    }
    return story;
  }

  /** The path when the store has that image now (restored from the archive or already there), else null and a note. */
  private async presentImage(state: RestoreState, file: string, relPath: string | null): Promise<string | null> {
    if (relPath === null) return null;
    try {
      if ((await this.deps.images.locateImage(relPath)).exists) return relPath;
    } catch {
      // an invalid path: reported below
    }
    this.report(state, file, `its image ${relPath} is in neither the archive nor the library; it is restored without it`);
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
