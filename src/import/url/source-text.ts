/**
 * A source work's chapters made ready in the extraction thread (docs/decisions.md, "Sources"):
 * each picture's source becomes a placeholder of the stored-image URL shape (as an EPUB's do,
 * src/import/epub.ts), so the import stores the pictures and never hot-links them; and each
 * chapter is sanitized and derived here (src/stories/chapter-text.ts `deriveChapter`), so
 * neither an import nor a refresh sanitizes on the event loop (a 3,000-chapter work is 28 MB of
 * HTML). The main thread only puts the stored pictures in their placeholders' place
 * (../image-placeholder.ts). A refresh compares each chapter's plain text with the stored one to
 * tell a changed chapter from an unchanged one.
 */
import { randomBytes } from 'node:crypto';
import { DomUtils, ElementType, parseDocument } from 'htmlparser2';
import { INLINE_IMAGE_PREFIX } from '../../images/inline-images.js';
import { deriveChapter, type ChapterText } from '../../stories/chapter-text.js';
import type { SourceWork } from './source-work.js';
import { absoluteHttpUrl, pictureCandidates, type SourceElement } from '../image-sources.js';

type DomNode = ReturnType<typeof parseDocument>['children'][number];
type DomElement = Extract<DomNode, { attribs: Record<string, string> }>;

export interface PreparedWork {
  /** Per picture, across all chapters: its placeholder URL and the URLs to try, best first. */
  images: Array<{ placeholder: string; sources: string[] }>;
  /** Per chapter of the work, sanitized and derived, its pictures as their placeholders (which have no text). */
  chapters: ChapterText[];
}

/** What a lazy loader or a `srcset` left on an `<img>`: nothing of it is kept once the source is chosen. */
const SOURCE_ATTRIBUTES = ['srcset', 'sizes', 'data-src', 'data-srcset', 'data-lazy-src', 'data-lazy-srcset', 'data-original'];

/** An htmlparser2 element seen the way ../image-sources.ts reads a DOM element. */
function asSourceElement(element: DomElement): SourceElement {
  return {
    tagName: element.name.toUpperCase(),
    getAttribute: (name: string) => element.attribs[name] ?? null,
    get parentElement() {
      const parent = element.parent as DomNode | null;
      return parent !== null && ElementType.isTag(parent) ? asSourceElement(parent as DomElement) : null;
    },
    get children() {
      return (element.children as DomNode[]).filter((child): child is DomElement => ElementType.isTag(child)).map(asSourceElement);
    },
  };
}

/** Replaces the pictures of `html` with placeholders `<prefix><n>.png`, numbered on from `pictures` (at most `maxImages` in all). */
function placehold(html: string, base: string, prefix: string, pictures: PreparedWork['images'], maxImages: number): string {
  const document = parseDocument(html);
  const images = DomUtils.findAll((element) => element.name === 'img', document.children as never) as DomElement[];
  for (const image of images) {
    const candidates = pictureCandidates(asSourceElement(image), (raw) => absoluteHttpUrl(raw, base));
    for (const name of SOURCE_ATTRIBUTES) delete image.attribs[name];
    if (candidates.length === 0 || pictures.length >= maxImages) {
      DomUtils.removeElement(image as never);
      continue;
    }
    const placeholder = `${prefix}${pictures.length}.png`;
    image.attribs.src = placeholder;
    pictures.push({ placeholder, sources: candidates });
  }
  for (const source of DomUtils.findAll((element) => element.name === 'source', document.children as never)) DomUtils.removeElement(source);
  return DomUtils.getOuterHTML(document.children as never, { encodeEntities: 'utf8' });
}

/** Prepares `work`'s chapters (see the file comment); at most `maxImages` pictures are kept. */
export function prepareWork(work: SourceWork, maxImages: number): PreparedWork {
  // A token per work, so no text of the source can name a placeholder of ours.
  const prefix = `${INLINE_IMAGE_PREFIX}source-${randomBytes(8).toString('hex')}-`;
  const images: PreparedWork['images'] = [];
  const chapters = work.chapters.map((chapter) => {
    const html = /<img\b/i.test(chapter.contentHtml) ? placehold(chapter.contentHtml, chapter.sourceUrl, prefix, images, maxImages) : chapter.contentHtml;
    return deriveChapter({ title: chapter.title, contentHtml: html, sourceUrl: chapter.sourceUrl, sourceKey: chapter.sourceKey });
  });
  return { images, chapters };
}
