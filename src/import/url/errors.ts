/**
 * The import's own client errors (docs/decisions.md, "URL import"): each names the `url` field
 * in `details`, so the web form can show it beside the box and an API client knows what to fix.
 */
import { HttpError } from '../../errors.js';

/** Private, loopback, link-local or metadata destination, refused before any connection. */
export function blockedDestination(host: string): HttpError {
  return new HttpError(403, 'The URL points to a private or local address', {
    url: `${host} is a private, loopback, link-local or metadata address; list it in IMPORT_ALLOW_HOSTS to import from it`,
  });
}

/** The page answered an error status, or could not be reached. */
export function upstreamFailed(message: string): HttpError {
  return new HttpError(502, 'The page could not be fetched', { url: message });
}

/** The page (or the whole fetch) took longer than the limit. */
export function upstreamTimedOut(seconds: number): HttpError {
  return new HttpError(504, 'The page took too long to fetch', { url: `did not arrive within ${seconds} s` });
}

/** The page is larger than the byte cap (after decompression). */
export function pageTooLarge(limitBytes: number): HttpError {
  return new HttpError(422, 'The page is too large to import', { url: `is larger than ${limitBytes} bytes` });
}

/** The page is not HTML. */
export function notHtml(contentType: string): HttpError {
  return new HttpError(415, 'The URL does not point to an HTML page', {
    url: `answered ${contentType === '' ? 'no Content-Type' : contentType}, not text/html or application/xhtml+xml`,
  });
}

/** Readability found no article in the page. */
export function noArticle(): HttpError {
  return new HttpError(422, 'No story text was found on the page', { url: 'has no readable article text' });
}

/** More redirects than allowed. */
export function tooManyRedirects(limit: number): HttpError {
  return new HttpError(502, 'The page could not be fetched', { url: `redirected more than ${limit} times` });
}

/** The extraction workers are all busy and their queue is full. */
export function importsBusy(): HttpError {
  return new HttpError(503, 'Too many imports are running; try again in a moment');
}

/**
 * The site answered an error status. Still the 502 the client sees, with what the politeness
 * needs (docs/decisions.md, "Sources"): the status, and how long the site asked us to wait
 * (`Retry-After` of a 429 or 503) in milliseconds.
 */
export class UpstreamStatus extends HttpError {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super(502, 'The page could not be fetched', { url: `answered HTTP ${status}` });
  }
}

/** The site asked us to wait longer than a request may (429 or 503 with a long `Retry-After`). */
export function siteAsksToWait(seconds: number): HttpError {
  return new HttpError(503, 'The site asks us to slow down; try again later', { url: `the site asked for a pause of ${seconds} s` });
}

/** A request waited for its turn at the site longer than it may. */
export function siteQueueTimedOut(seconds: number): HttpError {
  return new HttpError(503, 'Too many requests to this site are waiting; try again later', { url: `did not get its turn at the site within ${seconds} s` });
}

/** An otwarchive work visible only to the archive's logged-in users. */
export function restrictedWork(host: string): HttpError {
  return new HttpError(422, 'This work is only visible to logged-in users of its archive', {
    url: `${host} shows this work only to its logged-in users; Storyshelf does not log in, so it cannot be imported`,
  });
}

/** A work with more chapters than `SOURCE_MAX_CHAPTERS`. */
export function tooManyChapters(chapters: number, limit: number): HttpError {
  return new HttpError(422, 'The work has too many chapters to import', { url: `has ${chapters} chapters; at most ${limit} are imported (SOURCE_MAX_CHAPTERS)` });
}

/** A series with more works (or pages) than allowed, or a page that does not lead anywhere. */
export function sourceUnreadable(reason: string): HttpError {
  return new HttpError(422, 'The source could not be read', { url: reason });
}
