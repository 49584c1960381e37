/**
 * An extraction worker thread of ./extract-pool.ts: decodes a page and extracts its story
 * (src/import/html-story.ts), one page at a time, so Readability's hundreds of milliseconds on a
 * large page never block the server's event loop. Never imported.
 */
import { serveWorkerTasks } from '../../lib/worker-pool.js';
import { decodeHtml } from '../decode-text.js';
import { extractStory } from '../html-story.js';

serveWorkerTasks({
  /** The page's story, or undefined when it has none. */
  extract: (bytes: Uint8Array, charset: string | undefined, url: string, maxImages: number) => extractStory(decodeHtml(bytes, charset), url, maxImages),
});
