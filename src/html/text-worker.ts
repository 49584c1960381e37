/**
 * The story-text thread of ./text-thread.ts: sanitizes a body and derives its plain text and
 * word count (./story-text.ts), so a create's costliest step off the write path runs beside the
 * event loop. Never imported.
 */
import { serveWorkerTasks } from '../lib/worker-pool.js';
import { deriveStoryText } from './story-text.js';

serveWorkerTasks({
  /** Each request's bodies (a story's chapters, or its one body), derived in turn. */
  deriveStoryTexts: (requests: Array<Array<string | null | undefined>>) => requests.map((htmls) => htmls.map((html) => deriveStoryText(html))),
});
