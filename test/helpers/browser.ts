/**
 * A real Chromium for browser tests, driven through puppeteer-core (no browser download: the
 * system's chromium, which .ci/run installs when missing; `CHROMIUM_PATH` points elsewhere).
 *
 * Pages are opened at a LAN host name, `http://storyshelf.lan:<port>`, mapped to 127.0.0.1 inside
 * the browser only: Chromium treats localhost and 127.0.0.1 as secure contexts and exempts them
 * from upgrade-insecure-requests and similar rules, so a test at a loopback name would not see
 * what a phone on the home network sees.
 *
 * One browser per test process, launched by the first file that asks (a launch costs ~1 s of CPU
 * across Chromium's processes) and closed when the process ends; every file starts with an empty
 * cookie jar; one page per test. Several browser files share a process (scripts/test.mjs).
 */
import tap, { type Test } from 'tap';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { App } from '../../src/app.js';

export const LAN_HOST = 'storyshelf.lan';

let shared: Promise<Browser> | undefined;

/**
 * Headless Chromium with `LAN_HOST` resolving to loopback: the process's one browser, launched
 * on the first call and closed when the process's tests end, its cookies cleared for the file
 * that asks.
 */
export async function launchBrowser(): Promise<Browser> {
  if (shared === undefined) {
    shared = puppeteer.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: [
        // Containers and CI runners have no user namespaces for Chromium's sandbox.
        '--no-sandbox',
        `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`,
        // Small /dev/shm in containers makes renderers crash under load.
        '--disable-dev-shm-usage',
      ],
    });
    const launched = shared;
    tap.teardown(async () => (await launched).close());
  }
  const browser = await shared;
  // A file of the same process may have logged in or chosen a theme: cookies name the host, not
  // the port, so they would reach this file's server too.
  const cookies = await browser.cookies();
  if (cookies.length > 0) await browser.deleteCookie(...cookies);
  return browser;
}

/** Serves `app` on a real loopback socket and returns its origin under `LAN_HOST`. */
export async function serveOnLan(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the app is not listening on a TCP port');
  return `http://${LAN_HOST}:${address.port}`;
}

export interface WatchedPage {
  page: Page;
  /**
   * Everything that went wrong in the page so far: failed requests (an upgrade to https, a CSP
   * block, a refused connection), requests that left for another scheme or host, CSP
   * violations, uncaught exceptions. A healthy page leaves it empty.
   */
  problems: string[];
}

/**
 * How long a page waits for anything (a selector, a navigation, a function): one bound for every
 * browser test. A wait ends as soon as what it waits for happens, so the bound costs nothing when
 * a test passes; with three test files at once, each with its own Chromium, a suggestion list once
 * took longer than the 5 s a test had given it.
 */
export const BROWSER_WAIT_MS = 30_000;

/**
 * A page function that is true once a form's chosen cover is previewed and its picture loaded.
 * The preview has a width but no height, so it grows the form when the picture arrives: a click
 * on a button below it before then can land on whatever the growth moved there (the story form's
 * save button, on a loaded machine).
 */
export const COVER_PREVIEW_LOADED = `(() => {
  const preview = document.querySelector('[data-dropzone-preview]');
  return preview !== null && !preview.hidden && preview.complete && preview.naturalWidth > 0;
})()`;

/** A new page in `browser` that records its problems for `origin`; closed at `t`'s teardown. */
export async function watchedPage(t: Test, browser: Browser, origin: string): Promise<WatchedPage> {
  const page = await browser.newPage();
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  t.teardown(() => page.close());
  const problems: string[] = [];
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? 'unknown';
    // A script's own request that the script cancelled: htmx's hx-sync="this:replace" aborts a
    // suggestion request still running when the next keystroke asks again (a slow answer on a
    // loaded machine). The server failing a request shows as another error, or as a status.
    if (error === 'net::ERR_ABORTED' && (request.resourceType() === 'xhr' || request.resourceType() === 'fetch')) return;
    problems.push(`request failed: ${request.url()} (${error})`);
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) problems.push(`request left the origin: ${url}`);
  });
  // Only CSP reports: Chromium also logs, as errors, that it ignores Cross-Origin-Opener-Policy
  // on plain HTTP, which every page of this server at a LAN address gets.
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error instanceof Error ? error.message : String(error)}`));
  return { page, problems };
}
