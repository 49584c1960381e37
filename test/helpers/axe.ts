/**
 * Accessibility checks in a real Chromium (docs/web.md, "Testing"): axe-core evaluated from
 * node_modules, WCAG 2.1 A and AA rules only, in every theme a page can show.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Test } from 'tap';
import type { Page } from 'puppeteer-core';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: string | undefined;

/** axe-core's source (550 KB), read once per process. */
function axeScript(): string {
  axeSource ??= fs.readFileSync(AXE_SCRIPT, 'utf8');
  return axeSource;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** Runs axe on the page as it is now; fails `t` with every violation listed (rule, help, elements). */
export async function expectNoAxeViolations(t: Test, page: Page, label: string): Promise<void> {
  // Strings, not functions: the test project has no DOM types.
  const loaded = (await page.evaluate('typeof window.axe !== "undefined"')) as boolean;
  // Evaluated through the DevTools protocol, not added as a <script>: the page CSP (rightly)
  // blocks inline scripts, and the test would report its own injection as a violation.
  if (!loaded) await page.evaluate(axeScript());
  const violations = (await page.evaluate(
    `window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((result) => result.violations)`,
  )) as AxeViolation[];
  const listed = violations.map(
    (violation) =>
      `${violation.id} (${violation.impact ?? 'n/a'}): ${violation.help}\n` +
      violation.nodes.map((node) => `    ${JSON.stringify(node.target)} ${node.failureSummary ?? ''}`).join('\n'),
  );
  t.same(listed, [], `axe: no WCAG 2.1 A/AA violations on ${label}`);
}

export type ColourScheme = 'light' | 'dark';

/**
 * Runs `check` once per colour scheme, reaching each both ways a reader can: the system's
 * `prefers-color-scheme` with the theme cookie at `auto`, and the theme cookie forcing it (sepia
 * is checked with the light system preference). `load` navigates the page afresh.
 */
export async function inEveryTheme(
  page: Page,
  origin: string,
  load: () => Promise<void>,
  check: (label: string) => Promise<void>,
): Promise<void> {
  const { hostname } = new URL(origin);
  const setTheme = (value: string) => page.setCookie({ name: 'theme', value, domain: hostname, path: '/' });
  // axe rides along with each of the five loads as a script Chromium runs in every new document
  // (before the page's own), instead of 550 KB sent through the DevTools protocol and compiled
  // again after each load: docs/performance.md, "axe with the page".
  const { identifier } = await page.evaluateOnNewDocument(axeScript());
  try {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      await setTheme('auto');
      await load();
      await check(`system ${scheme}`);
      await setTheme(scheme);
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme === 'light' ? 'dark' : 'light' }]);
      await load();
      await check(`theme cookie ${scheme} (system ${scheme === 'light' ? 'dark' : 'light'})`);
    }
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await setTheme('sepia');
    await load();
    await check('theme cookie sepia');
  } finally {
    await page.removeScriptToEvaluateOnNewDocument(identifier);
  }
  await setTheme('auto');
}

/**
 * The checks every page owes a reader, for each path: no axe violation in any theme
 * ({@link inEveryTheme}), and no horizontal scroll at 320 px wide (the narrowest phone). The
 * viewport is put back to `width` × 800 afterwards.
 */
export async function expectAccessiblePages(t: Test, page: Page, origin: string, paths: readonly string[], width = 1024): Promise<void> {
  for (const path of paths) {
    await inEveryTheme(
      page,
      origin,
      async () => {
        await page.goto(`${origin}${path}`, { waitUntil: 'load' });
      },
      (label) => expectNoAxeViolations(t, page, `${path} (${label})`),
    );
    await page.setViewport({ width: 320, height: 800 });
    await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    t.equal(overflow, 0, `${path}: no horizontal scroll at 320 px`);
    await page.setViewport({ width, height: 800 });
  }
}
