/**
 * A chapter's stored text, and the whole work assembled from a story's chapters
 * (docs/decisions.md, "Chapters"). Both pure: sanitizing is done before a write transaction
 * opens (it is the costly part), assembling inside it from text already sanitized.
 */
import { deriveStoryText, type StoryText } from '../html/story-text.js';
import { escapeXml } from '../lib/xml.js';

/** What one chapter stores, sanitized and derived. */
export interface ChapterText {
  title: string;
  contentHtml: string;
  contentPlain: string;
  wordCount: number;
  sourceUrl: string | null;
  /** The source's own id of the chapter (AO3's chapter id): what a refresh matches on. */
  sourceKey: string | null;
}

/** A chapter as a body or an importer gives it, before sanitizing. */
export interface RawChapter {
  title?: string | null;
  contentHtml?: string | null;
  sourceUrl?: string | null;
  sourceKey?: string | null;
}

/**
 * Sanitizes and derives one chapter (or takes `text`, its body already derived). An empty body is
 * an empty chapter, not an error.
 */
export function deriveChapter(raw: RawChapter, text: StoryText = deriveStoryText(raw.contentHtml)): ChapterText {
  return {
    title: (raw.title ?? '').trim(),
    contentHtml: text.contentHtml ?? '',
    contentPlain: text.contentPlain ?? '',
    wordCount: text.wordCount,
    sourceUrl: raw.sourceUrl ?? null,
    sourceKey: raw.sourceKey ?? null,
  };
}

/** The fields of a chapter the whole work is made of. */
export type WorkPart = Pick<ChapterText, 'title' | 'contentHtml' | 'contentPlain' | 'wordCount'>;

/** One chapter as the whole work holds it: under `<h2>` with its escaped title, or as it is when untitled (the reader's chapter page shows the same). */
export function chapterWithHeading(chapter: Pick<WorkPart, 'title' | 'contentHtml'>): string {
  return chapter.title === '' ? chapter.contentHtml : `<h2>${escapeXml(chapter.title)}</h2>\n${chapter.contentHtml}`;
}

/**
 * The story's `contentHtml`, `contentPlain` and `wordCount`: its chapters in order, each under an
 * `<h2>` heading with its title (an untitled chapter has none). One untitled chapter is the
 * story's text exactly, so every story made before chapters, and every story written through
 * `contentHtml`, reads back byte-identical; an empty one is `null`, as an absent body always was.
 * The word count is the chapters' sum: headings are not the author's words.
 */
export function assembleWork(chapters: readonly WorkPart[]): StoryText {
  const wordCount = chapters.reduce((sum, chapter) => sum + chapter.wordCount, 0);
  const only = chapters.length === 1 ? chapters[0] : undefined;
  if (only !== undefined && only.title === '') {
    // No HTML is null HTML and null text; HTML without text keeps its empty text (src/html/story-text.ts).
    if (only.contentHtml === '') return { contentHtml: null, contentPlain: null, wordCount };
    return { contentHtml: only.contentHtml, contentPlain: only.contentPlain, wordCount };
  }
  const html = chapters.map(chapterWithHeading);
  const plain = chapters.map((chapter) => (chapter.title === '' ? chapter.contentPlain : `${chapter.title}\n\n${chapter.contentPlain}`));
  return { contentHtml: html.join('\n'), contentPlain: plain.join('\n\n'), wordCount };
}

/** The chapters a story keeps of these: at least one, since none is stored as one empty chapter (src/stories/chapter-service.ts). */
export function chapterCountOf(chapters: readonly unknown[]): number {
  return Math.max(1, chapters.length);
}

/** A whole-work text (an importer's flat body, an archive's story) as one untitled chapter. */
export function textAsChapter(text: StoryText): ChapterText {
  return {
    title: '',
    contentHtml: text.contentHtml ?? '',
    contentPlain: text.contentPlain ?? '',
    wordCount: text.wordCount,
    sourceUrl: null,
    sourceKey: null,
  };
}
