/**
 * Story bodies derived beside the event loop (docs/decisions.md, "Writes"): sanitizing a body and
 * deriving its plain text and word count (./story-text.ts) is ~1.5 ms of CPU for 1,500 words, a
 * quarter of a create's main-thread time, and grows with the body (a long work's chapter takes
 * hundreds of milliseconds). On its own thread it runs on the second core while the event loop
 * serves the next request and commits the last (docs/performance.md, "Creates, grouped").
 *
 * One thread for the process (src/lib/shared-thread.ts, on the one worker pool): it is pure
 * computation, holding nothing of any app's, so the apps of a test process may share it. It starts
 * on the first body worth sending ({@link OFF_THREAD_MIN_CHARS}) and stops after
 * {@link TEXT_THREAD_IDLE_MS} without one, so an idle service or a test process that only writes
 * small bodies keeps no thread. The thread is a speed-up only: when it is busy beyond its queue,
 * gone or slow, the body is derived here, with the same function, so the stored text never
 * depends on it.
 */
import { SharedThread } from '../lib/shared-thread.js';
import { deriveStoryText, type StoryText } from './story-text.js';

/**
 * Bodies shorter than this (in all) are derived here: below ~4,000 characters the derivation
 * costs less than the two messages and the wait (~0.1 ms), and most edits are small.
 */
export const OFF_THREAD_MIN_CHARS = 4096;
/** The thread stops after this long without work (its start costs ~0.2 s of CPU). */
export const TEXT_THREAD_IDLE_MS = 30_000;
/** Tasks (one turn's bodies each) waiting for the thread; one more is derived here. */
const TEXT_QUEUE_MAX = 32;
/** Past this, a body is derived here instead (and the thread replaced): a 100 MiB body on a slow machine. */
const TEXT_TIMEOUT_MS = 60_000;

const thread = new SharedThread({ callerUrl: import.meta.url, modulePath: './text-worker.js', size: 1, queueMax: TEXT_QUEUE_MAX, taskTimeoutMs: TEXT_TIMEOUT_MS }, TEXT_THREAD_IDLE_MS);
/** Bodies the thread derived (for tests: a count that only this module's work moves). */
let derivedOnThread = 0;

interface Waiting {
  htmls: ReadonlyArray<string | null | undefined>;
  resolve: (texts: StoryText[]) => void;
}

/** Bodies handed over in this turn of the event loop, sent to the thread together at its end. */
let waiting: Waiting[] = [];

/**
 * Each body's stored text, as {@link deriveStoryText} gives it: on the text thread when the bodies
 * are long enough to be worth it, else (or when the thread cannot take them) here.
 *
 * The bodies of every request handed over in one turn go to the thread as one task and come back
 * together, so those requests reach their write in one turn too and commit as one group
 * (src/db/write-batch.ts). One task per body came back one by one: under ten connections of
 * creates, 98 % of the write groups held a single create (docs/performance.md, "Creates, grouped").
 */
export function deriveStoryTexts(htmls: ReadonlyArray<string | null | undefined>): Promise<StoryText[]> {
  const chars = htmls.reduce((sum, html) => sum + (html?.length ?? 0), 0);
  if (chars < OFF_THREAD_MIN_CHARS) return Promise.resolve(htmls.map((html) => deriveStoryText(html)));
  return new Promise((resolve) => {
    waiting.push({ htmls, resolve });
    if (waiting.length === 1) setImmediate(sendWaiting);
  });
}

async function sendWaiting(): Promise<void> {
  const group = waiting;
  waiting = [];
  const pool = thread.lend();
  let texts: StoryText[][];
  try {
    texts = await pool.run<StoryText[][]>('deriveStoryTexts', [group.map((entry) => entry.htmls)]);
    derivedOnThread += group.reduce((sum, entry) => sum + entry.htmls.length, 0);
  } catch {
    // Busy, timed out, or the thread died: the same derivation here (a body that kills the
    // thread would fail here as it always did, with the request's own error).
    texts = group.map((entry) => entry.htmls.map((html) => deriveStoryText(html)));
  } finally {
    void thread.giveBack(pool);
  }
  group.forEach((entry, index) => entry.resolve(texts[index]!));
}

/** How many bodies the text thread has derived in this process (for tests). */
export function bodiesDerivedOnThread(): number {
  return derivedOnThread;
}
