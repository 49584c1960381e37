/**
 * The worker thread of src/import/url/extract-pool.ts: decodes a page and extracts its story
 * (src/import/html-story.ts), one job at a time, so Readability's hundreds of milliseconds on a
 * large page never block the server's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { decodeHtml } from '../decode-text.js';
import { extractStory } from '../html-story.js';
import type { ExtractJob, ExtractReply } from './extract-pool.js';

parentPort?.on('message', (job: ExtractJob) => {
  let reply: ExtractReply;
  try {
    const html = decodeHtml(job.bytes, job.charset);
    reply = { id: job.id, story: extractStory(html, job.url, job.maxImages) ?? null };
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
