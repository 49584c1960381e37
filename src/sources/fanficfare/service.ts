/**
 * Addresses FanFicFare takes (docs/decisions.md, "Sources"): with `FANFICFARE_COMMAND` set and
 * the address on one of its sites, a URL import becomes an `import-fanficfare` job (202) instead
 * of Storyshelf fetching the page.
 */
import type { Db } from '../../db/open.js';
import { duplicate, findBySourceUrl, normaliseImportUrl } from '../../import/url/service.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { FanficfareEngine } from './engine.js';
import { IMPORT_FANFICFARE_KIND, type FanficfareImportParams } from './job.js';

/**
 * Queues FanFicFare's download of `rawUrl` and returns the job's id, or undefined when FanFicFare
 * does not take the address (off, or not one of its sites). 400 for an address that is not an
 * absolute http(s) URL; 409 naming the story when the address was imported before and `update`
 * is not set (with it, the job updates that story); 429 when the job queue is full.
 */
export async function startFanficfareImport(engine: FanficfareEngine, jobs: JobRunner, db: Db, rawUrl: string, update: boolean): Promise<string | undefined> {
  const url = normaliseImportUrl(rawUrl).href;
  if (!(await engine.handles(url))) return undefined;
  const earlier = findBySourceUrl(db, url);
  if (earlier !== undefined && !update) throw duplicate(earlier);
  jobs.checkQueueRoom();
  // FanFicFare gets the address as typed (it has passed the same checks): its adapters know their sites' own forms.
  const params: FanficfareImportParams = { url: rawUrl.trim() };
  return jobs.enqueue(IMPORT_FANFICFARE_KIND, params, { total: 1 });
}

/** The message of an address FanFicFare supports while it is not set up. */
export const FANFICFARE_WOULD_HANDLE = 'FanFicFare would download this whole work with its chapters and metadata: set FANFICFARE_COMMAND to use it';

/** Which engine a URL import of `rawUrl` would use; 400 for an address that is not an absolute http(s) URL. */
export async function engineOf(engine: FanficfareEngine, rawUrl: string): Promise<{ engine: 'fanficfare' | 'storyshelf'; fanficfareKnowsSite: boolean; message: string | null }> {
  const url = normaliseImportUrl(rawUrl).href;
  const handles = await engine.handles(url);
  const knows = handles || engine.knowsSite(url);
  return { engine: handles ? 'fanficfare' : 'storyshelf', fanficfareKnowsSite: knows, message: knows && !engine.enabled ? FANFICFARE_WOULD_HANDLE : null };
}
