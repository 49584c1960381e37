/**
 * A book's story pages (docs/decisions.md, "EPUB export"): one XHTML document per chapter, a long
 * chapter split between top-level blocks so that no document passes {@link MAX_DOCUMENT_BYTES},
 * and the spine record that lets KOReader sync name the story, the chapter and the blocks each
 * document holds (docs/decisions.md, "KOReader sync"). Pure: the same chapters give the same text.
 */
import { escapeXml } from '../lib/xml.js';
import type { BodyBlock, ChapterBlocks } from './xhtml.js';
import { xhtmlDocument } from './xml.js';

/**
 * The most bytes of one XHTML document: e-ink readers lay a document out whole before showing
 * its first page, so a 2 MB chapter took seconds per open. A single block bigger than this (a
 * huge table) stays whole: a document is never cut inside a block.
 */
export const MAX_DOCUMENT_BYTES = 300 * 1024;

/**
 * One story page as the rendition's spine records it: the story, the chapter (1-based), the
 * chapter's top-level blocks it holds (`from` to `to`, indices into {@link ChapterBlocks.blocks}),
 * the headings written before them (their element names), and a digest of the chapter's stored
 * HTML, which says whether those blocks still mean the same paragraphs.
 */
export interface SpineDocument {
  story: string;
  chapter: number;
  from: number;
  to: number;
  heads: string[];
  text: string;
}

/** A story page of the book: its file name, its entry in the contents (none for a continuation), its text and its spine record. */
export interface StoryPage {
  file: string;
  /** The contents entry the page starts, or null when it continues a chapter. */
  label: string | null;
  /** An `id` in the page the contents link to, for a chapter listed under its story. */
  anchor: string | null;
  xhtml: string;
  spine: SpineDocument;
}

/** What a story's pages need of one chapter. */
export interface PageChapter {
  index: number;
  title: string;
  blocks: ChapterBlocks;
  /** The digest of its stored HTML (src/epub/renditions.ts `storyTextDigest`). */
  text: string;
}

/** What a story's pages need of the story. */
export interface PageStory {
  id: string;
  title: string;
  language: string;
  chapters: readonly PageChapter[];
}

/** A chapter's contents entry and heading: its title, `Chapter k` without one, the story's title when it is the story's only, untitled chapter. */
function chapterLabel(story: Pick<PageStory, 'title' | 'chapters'>, chapter: Pick<PageChapter, 'index' | 'title'>): string {
  if (chapter.title !== '') return chapter.title;
  return story.chapters.length === 1 ? story.title : `Chapter ${chapter.index}`;
}

/** Whether a story's chapters get headings of their own: not when it is one untitled chapter (the story's title says it all). */
function hasChapterHeadings(story: Pick<PageStory, 'chapters'>): boolean {
  return story.chapters.length > 1 || story.chapters[0]?.title !== '';
}

/**
 * The file of the `part`-th page of chapter `chapter` of the book's `ordinal`-th story:
 * `story-0001.xhtml` for a one-chapter story (as books made before chapters named it), then
 * `-0003` for the chapter of a story of several and `-p2` for a continuation.
 */
function pageFile(ordinal: number, story: PageStory, chapter: number, part: number): string {
  const base = `story-${String(ordinal).padStart(4, '0')}`;
  const chapterPart = story.chapters.length > 1 ? `-${String(chapter).padStart(4, '0')}` : '';
  return `${base}${chapterPart}${part > 1 ? `-p${part}` : ''}.xhtml`;
}

/**
 * The block ranges of a chapter's pages: blocks in order, a new page started when the next block
 * would take the page past {@link MAX_DOCUMENT_BYTES}. `firstOverhead` and `overhead` are the
 * bytes of the first page and of a continuation without blocks.
 */
function pageRanges(pieces: readonly string[], firstOverhead: number, overhead: number): Array<{ from: number; to: number }> {
  const ranges: Array<{ from: number; to: number }> = [];
  let from = 0;
  let size = firstOverhead;
  pieces.forEach((piece, i) => {
    const bytes = Buffer.byteLength(piece) + 1;
    if (i > from && size + bytes > MAX_DOCUMENT_BYTES) {
      ranges.push({ from, to: i });
      from = i;
      size = overhead;
    }
    size += bytes;
  });
  ranges.push({ from, to: pieces.length });
  return ranges;
}

/**
 * The pages of the book's `ordinal`-th story (1-based). A book of several stories opens each
 * story with its title (`h1`); a chapter opens with its label (`h2`, its `id` the contents'
 * anchor) unless the story is one untitled chapter, whose page opens with the story's title as
 * it always did.
 */
export function storyPages(ordinal: number, story: PageStory, collection: boolean): StoryPage[] {
  const pages: StoryPage[] = [];
  const chapterHeads = hasChapterHeadings(story);
  story.chapters.forEach((chapter, c) => {
    const heads: Array<{ name: string; xhtml: string }> = [];
    if (c === 0 && (collection || !chapterHeads)) heads.push({ name: 'h1', xhtml: `<h1 class="story-title">${escapeXml(story.title)}</h1>` });
    const label = chapterLabel(story, chapter);
    const anchor = chapterHeads ? `chapter-${chapter.index}` : null;
    if (anchor !== null) heads.push({ name: 'h2', xhtml: `<h2 class="chapter-title" id="${anchor}">${escapeXml(label)}</h2>` });
    const wrapper = Buffer.byteLength(xhtmlDocument(label, story.language, ''));
    const headBytes = heads.reduce((sum, head) => sum + Buffer.byteLength(head.xhtml) + 1, 0);
    const { pieces } = chapter.blocks;
    pageRanges(pieces, wrapper + headBytes, wrapper).forEach((range, part) => {
      const own = part === 0 ? heads : [];
      const body = [...own.map((head) => head.xhtml), ...pieces.slice(range.from, range.to)].join('\n');
      pages.push({
        file: pageFile(ordinal, story, chapter.index, part + 1),
        label: part === 0 ? label : null,
        anchor: part === 0 ? anchor : null,
        xhtml: xhtmlDocument(label, story.language, body),
        spine: { story: story.id, chapter: chapter.index, from: range.from, to: range.to, heads: own.map((head) => head.name), text: chapter.text },
      });
    });
  });
  return pages;
}

/** The top-level blocks of one page: its headings (no web index), then the chapter's blocks it holds. */
export function pageBlocks(page: Pick<SpineDocument, 'from' | 'to' | 'heads'>, chapterBlocks: readonly BodyBlock[]): BodyBlock[] {
  return [...page.heads.map((name) => ({ name, webIndex: null })), ...chapterBlocks.slice(page.from, page.to)];
}
