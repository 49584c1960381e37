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
  const contentPlain = htmlToPlainText(contentHtml);
  return { contentHtml, contentPlain, wordCount: countWords(contentPlain) };
}
