/**
 * Reading an address for an import or a refresh (docs/decisions.md, "URL import" and "Sources"):
 * every page is fetched through the site queue (./site-queue.ts: one request at a time per site,
 * a pause between requests, `Retry-After` and back-off) and the SSRF guard (./fetch.ts), then
 * read in the extraction thread (./extract-pool.ts). An otwarchive work comes back whole (its
 * entire-work view, past the adult notice), a series as its works' addresses, anything else as
 * the ordinary page's story.
 */
import { APP_IDENTITY } from '../../lib/app-version.js';
import type { ImportAllowList } from '../../lib/allow-hosts.js';
import { fullWorkAddress, workIdOfPath } from './otwarchive/parse.js';
import type { SourceWork } from './source-work.js';
import type { ExtractedStory } from '../html-story.js';
import { notHtml, pageTooLarge, restrictedWork, sourceUnreadable, tooManyChapters, upstreamTimedOut, UpstreamStatus } from './errors.js';
import type { ExtractPool } from './extract-pool.js';
import { fetchResource, type Fetched } from './fetch.js';
import type { SiteQueue } from './site-queue.js';
import type { PreparedWork } from './source-text.js';

/** 10 MiB of HTML (after decompression) is far more than any ordinary story page; beyond is refused. */
export const MAX_PAGE_BYTES = 10 * 1024 * 1024;
/** An ordinary page's fetch, redirects and body included. */
export const PAGE_TIMEOUT_MS = 15_000;
/**
 * A source's page may be a whole work in one page: a 3,000-chapter entire-work view of short
 * chapters is 28.5 MB. Beyond 32 MiB is refused (422), a 50 MB page included.
 */
export const MAX_SOURCE_PAGE_BYTES = 32 * 1024 * 1024;
/** A series lists 20 works a page: 25 pages are 500 works; more is no series we import. */
export const MAX_SERIES_PAGES = 25;
/** Pages a work's address may lead through (the adult notice, one chapter's page) before the work. */
const MAX_HOPS = 3;
/** How long a request may wait for its turn at a site, pauses the site asked for included. */
export const SITE_WAIT_MS = 60_000;

/** Sources are fetched naming Storyshelf, as archives ask of the programs that read them. */
export const SOURCE_USER_AGENT = `Storyshelf/${APP_IDENTITY.version} (self-hosted story library; reads the works its owner imports)`;

export interface SourceReadDeps {
  pool: ExtractPool;
  allow: ImportAllowList;
  queue: SiteQueue;
  /** `SOURCE_MAX_CHAPTERS`. */
  maxChapters: number;
  /** A source page's fetch in all (`SOURCE_PAGE_TIMEOUT_SECONDS`). */
  sourcePageTimeoutMs: number;
}

/** What an address holds. */
export type SourceRead =
  /** The work with its pictures as placeholders, the pictures' sources and each chapter's plain text. */
  | { kind: 'work'; work: SourceWork; prepared: PreparedWork }
  | { kind: 'series'; name: string; url: string; works: string[] }
  /** An ordinary page: its story (undefined when it has none) and the address it came from after redirects. */
  | { kind: 'article'; story: ExtractedStory | undefined; url: URL };

type Mode = 'source' | 'page';

/**
 * Fetches one HTML page through the site queue: 415 when it is not HTML, 422 over the byte
 * limit, 504 past the time limit. `source` pages name Storyshelf and have the source limits;
 * ordinary pages keep the URL import's (a browser's User-Agent, 10 MiB, 15 s).
 */
export async function fetchPage(deps: SourceReadDeps, url: URL, mode: Mode): Promise<Fetched> {
  const source = mode === 'source';
  const timeoutMs = source ? deps.sourcePageTimeoutMs : PAGE_TIMEOUT_MS;
  const maxBytes = source ? MAX_SOURCE_PAGE_BYTES : MAX_PAGE_BYTES;
  const signal = AbortSignal.timeout(timeoutMs + SITE_WAIT_MS);
  return deps.queue.run(url.host, { signal, maxWaitMs: SITE_WAIT_MS }, async () => {
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      return await fetchResource(url, {
        allow: deps.allow,
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
        checkType: (type) => {
          if (type !== 'text/html' && type !== 'application/xhtml+xml') throw notHtml(type);
        },
        maxBytes,
        tooLarge: () => pageTooLarge(maxBytes),
        signal: AbortSignal.any([signal, deadline]),
        ...(source ? { userAgent: SOURCE_USER_AGENT } : {}),
      });
    } catch (error) {
      if (deadline.aborted || signal.aborted) throw upstreamTimedOut(timeoutMs / 1000);
      throw error;
    }
  });
}

/** The canonical work address `<origin>/works/<id>` when `url` has the shape of an otwarchive work or chapter address. */
export function workAddressOf(url: URL): string | undefined {
  if (!/^\/works\/\d{1,12}(?:\/chapters\/\d{1,12})?\/?$/.test(url.pathname)) return undefined;
  return `${url.origin}/works/${workIdOfPath(url.pathname) as string}`;
}

function workShaped(url: URL): URL | undefined {
  const work = workAddressOf(url);
  return work === undefined ? undefined : new URL(fullWorkAddress(work));
}

function seriesShaped(url: URL): boolean {
  return /^\/series\/\d{1,12}\/?$/.test(url.pathname);
}

async function read(deps: SourceReadDeps, page: Fetched, maxImages: number) {
  return deps.pool.read(page.body, page.charset, page.url.href, maxImages, deps.maxChapters);
}

/**
 * What `url` holds (see {@link SourceRead}), in as few requests as the site allows: a work or
 * chapter address is asked for as the entire-work view at once (one request), and given as is
 * only when that page turns out not to be otwarchive's. A restricted work is 422, a work over
 * `SOURCE_MAX_CHAPTERS` 422, a series over {@link MAX_SERIES_PAGES} pages 422, and the fetch's own
 * errors pass through.
 */
export async function readAddress(deps: SourceReadDeps, url: URL, maxImages: number): Promise<SourceRead> {
  const full = workShaped(url);
  let page: Fetched | undefined;
  if (full !== undefined) {
    try {
      page = await fetchPage(deps, full, 'source');
    } catch (error) {
      // Not a work here after all (another program's /works/ path): the address as given decides.
      if (!(error instanceof UpstreamStatus) || (error.status !== 404 && error.status !== 400)) throw error;
    }
  }
  const asGiven = page === undefined;
  page ??= await fetchPage(deps, url, full !== undefined || seriesShaped(url) ? 'source' : 'page');
  let seen = await read(deps, page, maxImages);
  if (seen.kind === 'article' && !asGiven) {
    // The entire-work address of a page that is not otwarchive's: the page as given is the import.
    page = await fetchPage(deps, url, 'page');
    seen = await read(deps, page, maxImages);
  }
  if (seen.kind === 'article') return { kind: 'article', story: seen.story, url: page.url };

  let adultPassed = false;
  for (let hop = 0; ; hop += 1) {
    if (seen.kind !== 'otwarchive') throw sourceUnreadable('changed from an archive page to another kind of page');
    const otw = seen.page;
    switch (otw.kind) {
      case 'work':
        // The extraction thread prepares every work it reads (./extract-worker.ts).
        return { kind: 'work', work: otw.work, prepared: seen.prepared as PreparedWork };
      case 'series':
        return readSeries(deps, otw, maxImages);
      case 'restricted':
        throw restrictedWork(page.url.host);
      case 'too-many-chapters':
        throw tooManyChapters(otw.chapters, otw.limit);
      case 'adult':
      case 'partial-work': {
        if (hop >= MAX_HOPS || (otw.kind === 'adult' && adultPassed)) throw sourceUnreadable('kept leading to other pages instead of the work');
        adultPassed ||= otw.kind === 'adult';
        page = await fetchPage(deps, new URL(otw.kind === 'adult' ? otw.continueUrl : otw.fullUrl), 'source');
        seen = await read(deps, page, maxImages);
      }
    }
  }
}

/** Every work of a series, following its pages (at most {@link MAX_SERIES_PAGES}, never one twice). */
async function readSeries(deps: SourceReadDeps, first: { name: string; url: string; works: string[]; nextPage: string | null }, maxImages: number): Promise<SourceRead> {
  const works = [...first.works];
  const visited = new Set<string>([first.url]);
  let next = first.nextPage;
  for (let pages = 1; next !== null; pages += 1) {
    if (pages >= MAX_SERIES_PAGES) throw sourceUnreadable(`is a series of more than ${MAX_SERIES_PAGES} pages`);
    if (visited.has(next)) break;
    visited.add(next);
    const page = await fetchPage(deps, new URL(next), 'source');
    const seen = await read(deps, page, maxImages);
    if (seen.kind !== 'otwarchive' || seen.page.kind !== 'series') throw sourceUnreadable('has a series page that is not one');
    for (const work of seen.page.works) if (!works.includes(work)) works.push(work);
    next = seen.page.nextPage;
  }
  return { kind: 'series', name: first.name, url: first.url, works };
}
