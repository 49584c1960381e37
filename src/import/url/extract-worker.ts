/**
 * An extraction worker thread of ./extract-pool.ts: decodes a page and reads it, one page at a
 * time, so parsing a large page never blocks the server's event loop. `read` recognises the
 * pages of the sources Storyshelf follows by their markup (./otwarchive/parse.ts) and
 * extracts any other page's story (src/import/html-story.ts); `extract` does only the latter.
 * Never imported.
 */
import { serveWorkerTasks } from '../../lib/worker-pool.js';
import { parseOtwPage } from './otwarchive/parse.js';
import { decodeHtml } from '../decode-text.js';
import { extractStory } from '../html-story.js';
import type { ReadPage } from './extract-pool.js';
import { prepareWork } from './source-text.js';

serveWorkerTasks({
  /** The page's story, or undefined when it has none. */
  extract: (bytes: Uint8Array, charset: string | undefined, url: string, maxImages: number) => extractStory(decodeHtml(bytes, charset), url, maxImages),
  /** An otwarchive page as such; any other page's story (or undefined when it has none). */
  read: (bytes: Uint8Array, charset: string | undefined, url: string, maxImages: number, maxChapters: number): ReadPage => {
    const html = decodeHtml(bytes, charset);
    const otw = parseOtwPage(html, url, { maxChapters });
    if (otw !== undefined) return { kind: 'otwarchive', page: otw, prepared: otw.kind === 'work' ? prepareWork(otw.work, maxImages) : undefined };
    return { kind: 'article', story: extractStory(html, url, maxImages) };
  },
});
