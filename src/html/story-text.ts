import { htmlToPlainText } from './plain-text.js';
import { sanitizeStoryHtml } from './sanitize.js';
import { countWords } from './word-count.js';

export interface StoryText {
  contentHtml: string | null;
  contentPlain: string | null;
  wordCount: number;
}

/**
 * Everything stored for a story body: the sanitized HTML, its plain text and word count.
 * Absent, null or empty HTML is stored as null with 0 words (docs/decisions.md, "Story HTML").
 */
export function deriveStoryText(rawHtml: string | null | undefined): StoryText {
  if (rawHtml === undefined || rawHtml === null || rawHtml === '') {
    return { contentHtml: null, contentPlain: null, wordCount: 0 };
  }
  const contentHtml = sanitizeStoryHtml(rawHtml);
  return { contentHtml, ...plainTextOf(contentHtml) };
}

/**
 * The plain text and word count of HTML that is already sanitized: the second half of
 * {@link deriveStoryText}, which the re-derivation of stored stories also uses
 * (src/stories/text-rederive.ts), so both follow the same rules.
 */
export function plainTextOf(contentHtml: string): Omit<StoryText, 'contentHtml'> & { contentPlain: string } {
  const contentPlain = htmlToPlainText(contentHtml);
  return { contentPlain, wordCount: countWords(contentPlain) };
}
