/**
 * Importing a story from its URL (docs/api.md, "Importing from a URL"; docs/decisions.md, "URL
 * import"): fetch the page through the SSRF guard, extract the story in a worker, download its
 * images, then write it through the story service, so the counts, the search index and the
 * outbox change in the same transaction as any other story write. File I/O (the images) happens
 * before that transaction; if the write fails, the images this import stored are removed again.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.js';
import { stories } from '../../db/schema.js';
import { BadRequest, Conflict, HTTP_URL_RULE } from '../../errors.js';
import type { ImageStore } from '../../images/store.js';
import type { UpdateNotifier } from './update-notifier.js';
import type { KeyedLock } from '../../lib/keyed-lock.js';
import { LINKED_NAME_MAX, STORY_TITLE_MAX, type StoryCreateBody } from '../../schemas/story.js';
import { addStory, changeStory } from '../../stories/service.js';
import { URL_MAX } from '../../schemas/common.js';
import { storyOfUid } from './source-rows.js';
import { noArticle, sourceUnreadable } from './errors.js';
import { isHttpUrl } from './fetch.js';
import { createFromWork, type SourceWriteDeps } from './source-import.js';
import { readAddress, workAddressOf, type SourceReadDeps } from './source.js';
import { downloadImages, placeImages } from './images.js';

/** At most this many images of a story are downloaded; the rest are dropped. */
export const MAX_IMAGES = 50;
/** A summary is a teaser, not a copy of the text. */
const SUMMARY_MAX = 1000;

export interface UrlImportDeps extends SourceReadDeps, SourceWriteDeps {
  db: Db;
  images: ImageStore;
  /** One import per final URL at a time, per app: "is it a duplicate?" and the write never interleave. */
  locks: KeyedLock;
  /** Told of each refresh that added or changed chapters, after its commit (./update-notifier.ts). */
  updates: UpdateNotifier;
}


/**
 * The URL as it is stored in `sourceUrl` and compared for duplicates: WHATWG-normalised (scheme and
 * host lower case, default port and dot segments gone, IP forms such as `0x7f.1` spelled out), without
 * the `#fragment`. 400 on `url` for anything but an absolute http(s) URL without credentials.
 */
export function normaliseImportUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new BadRequest('Validation failed', { url: HTTP_URL_RULE });
  }
  if (!isHttpUrl(url)) throw new BadRequest('Validation failed', { url: HTTP_URL_RULE });
  if (url.username !== '' || url.password !== '') throw new BadRequest('Validation failed', { url: 'must not contain a user name or password' });
  url.hash = '';
  return url;
}

/** The story imported from `sourceUrl` (an indexed column), if any. */
export function findBySourceUrl(db: Db, sourceUrl: string): string | undefined {
  return db.select({ id: stories.id }).from(stories).where(eq(stories.sourceUrl, sourceUrl)).limit(1).get()?.id;
}

/** The 409 of an address already imported. */
export function duplicate(id: string): Conflict {
  return new Conflict('A story was already imported from this URL', {
    url: 'was already imported; add ?update=true to import it again into the same story',
    storyId: id,
  });
}

function cut(text: string | null, max: number): string | null {
  if (text === null) return null;
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** A work already in the library (by its uid or its address): refresh is how it is brought up to date. */
function heldWork(id: string): Conflict {
  return new Conflict('This work is already in the library', {
    url: 'is a work already imported; POST /api/stories/{id}/refresh brings it up to date',
    storyId: id,
  });
}

/** The story holding the work with this uid or canonical address, if any. */
export function heldWorkOf(db: Db, work: { uid: string; url: string }): string | undefined {
  return storyOfUid(db, work.uid) ?? findBySourceUrl(db, work.url);
}

/** What an import gave: a story, or a job importing a series' works. */
export type UrlImportOutcome = { kind: 'story'; storyId: string; created: boolean } | { kind: 'job'; jobId: string };

/** What the series import job is given: the series' address and its works' addresses, in order. */
export interface SeriesImportParams {
  seriesUrl: string;
  works: string[];
}

/** Starts the job that imports each work of a series (src/import/url/series-job.ts). */
export type StartSeriesImport = (params: SeriesImportParams) => string;

/**
 * Imports what `rawUrl` holds (docs/api.md, "Importing from a URL"; docs/decisions.md, "URL
 * import" and "Sources"). An otwarchive work (from its address or any chapter's) is imported
 * whole, following its source; one already held is 409 naming it, `update` or not. A series
 * starts a job for its works. Any other page is imported as before: a story whose `sourceUrl` is
 * the same normalised URL (before or after redirects) is a 409 naming it, unless `update` is
 * set: then that story is updated from the page (its tags, series, rating and cover are kept).
 */
export async function importFromUrl(deps: UrlImportDeps, rawUrl: string, update: boolean, startSeries: StartSeriesImport): Promise<UrlImportOutcome> {
  const requested = normaliseImportUrl(rawUrl);
  const shapedWork = workAddressOf(requested);
  const heldShaped = shapedWork === undefined ? undefined : findBySourceUrl(deps.db, shapedWork);
  if (heldShaped !== undefined) throw heldWork(heldShaped);
  const earlier = findBySourceUrl(deps.db, requested.href);
  if (earlier !== undefined && !update) throw duplicate(earlier);

  const read = await readAddress(deps, requested, MAX_IMAGES);
  if (read.kind === 'series') {
    if (read.works.length === 0) throw sourceUnreadable('is a series without works');
    return { kind: 'job', jobId: startSeries({ seriesUrl: read.url, works: read.works }) };
  }
  if (read.kind === 'work') {
    const { work, prepared } = read;
    return deps.locks.run(work.url, async () => {
      const held = heldWorkOf(deps.db, work);
      if (held !== undefined) throw heldWork(held);
      return { kind: 'story', storyId: await createFromWork(deps, work, prepared), created: true };
    });
  }

  const finalUrl = normaliseImportUrl(read.url.href).href;
  if (finalUrl.length > URL_MAX) throw new BadRequest('Validation failed', { url: `leads to an address longer than ${URL_MAX} characters` });
  const extracted = read.story;
  if (extracted === undefined) throw noArticle();

  return deps.locks.run(finalUrl, async () => {
    const existing = findBySourceUrl(deps.db, finalUrl) ?? earlier;
    if (existing !== undefined && !update) throw duplicate(existing);
    const stored = await downloadImages(deps.images, extracted.imageSources, deps.allow);
    const body: StoryCreateBody = {
      title: cut(extracted.title, STORY_TITLE_MAX) as string,
      authorName: extracted.authorName === null || extracted.authorName.length > LINKED_NAME_MAX ? null : extracted.authorName,
      summary: cut(extracted.summary, SUMMARY_MAX),
      contentHtml: placeImages(extracted.contentHtml, stored),
      sourceUrl: finalUrl,
    };
    try {
      if (existing === undefined) return { kind: 'story', storyId: await addStory(deps.db, deps.images, body), created: true };
      await changeStory(deps.db, deps.images, existing, body);
      return { kind: 'story', storyId: existing, created: false };
    } catch (error) {
      for (const relPath of stored) if (relPath !== undefined) await deps.images.discardUpload(relPath);
      throw error;
    }
  });
}
