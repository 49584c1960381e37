/**
 * The long works the chapter scenarios read (docs/performance.md, "Chapters"): the synthetic
 * library's stories are one-chapter bodies of 300 to 8,000 words, while the works people follow
 * are 10 to 200 chapters and up to a million words. Added to the library through the stories
 * service (as `POST /api/stories` with `chapters` writes them), once: a kept library that already
 * holds them is left alone.
 *
 * - `LONG_WORKS` works of 40 chapters of 10,000 words (400,000 words each), the size the chapter
 *   page's target names;
 * - one work of 100 chapters of 3,000 words, whose EPUB the import timing sends back in.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../src/db/open.js';
import { stories } from '../../src/db/schema.js';
import type { ImageStore } from '../../src/images/store.js';
import { addStory } from '../../src/stories/service.js';
import { DEFAULT_SEED, SyntheticLibrary } from '../lib/synthetic-library.js';

export const LONG_WORK_TITLE = 'Bench long work';
export const HUNDRED_CHAPTER_TITLE = 'Bench hundred-chapter work';
export const LONG_WORKS = 8;
export const LONG_WORK_CHAPTERS = 40;
const LONG_WORK_CHAPTER_WORDS = 10_000;
export const HUNDRED_CHAPTERS = 100;
const HUNDRED_CHAPTER_WORDS = 3_000;

function chaptersOf(library: SyntheticLibrary, count: number, words: number): Array<{ title: string; contentHtml: string }> {
  return Array.from({ length: count }, (_, i) => ({ title: `Chapter ${i + 1}: ${library.words(3)}`, contentHtml: library.body(words).html }));
}

/** Adds the long works a library lacks; answers how many it wrote and in how many seconds. */
export async function ensureLongWorks(db: Db, store: ImageStore): Promise<{ written: number; seconds: number }> {
  const started = Date.now();
  const held = (title: string) => db.select({ id: stories.id }).from(stories).where(eq(stories.title, title)).all().length;
  const library = new SyntheticLibrary(10, DEFAULT_SEED + 40);
  let written = 0;
  for (let i = held(LONG_WORK_TITLE); i < LONG_WORKS; i += 1) {
    await addStory(db, store, { title: LONG_WORK_TITLE, status: 'in-progress', chapters: chaptersOf(library, LONG_WORK_CHAPTERS, LONG_WORK_CHAPTER_WORDS) });
    written += 1;
  }
  if (held(HUNDRED_CHAPTER_TITLE) === 0) {
    await addStory(db, store, { title: HUNDRED_CHAPTER_TITLE, status: 'complete', chapters: chaptersOf(library, HUNDRED_CHAPTERS, HUNDRED_CHAPTER_WORDS) });
    written += 1;
  }
  return { written, seconds: (Date.now() - started) / 1000 };
}
