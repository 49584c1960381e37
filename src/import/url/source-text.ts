/**
 * A source work's chapters made ready in the extraction thread (docs/decisions.md, "Sources"):
 * each picture's source becomes a placeholder, as an ordinary page's do (../html-story.ts), so
 * the import stores the pictures and never hot-links them; and each chapter's plain text is
 * derived by the rules of a stored body (src/html/story-text.ts), which a refresh compares with
 * the stored text to tell a changed chapter from an unchanged one without sanitizing on the
 * event loop.
 */
import { DomUtils, ElementType, parseDocument } from 'htmlparser2';
import { sanitizeStoryHtml } from '../../html/sanitize.js';
import { plainTextOf } from '../../html/story-text.js';
import type { SourceWork } from './source-work.js';
import { IMAGE_PLACEHOLDER } from '../image-placeholder.js';
import { absoluteHttpUrl, pictureCandidates, type SourceElement } from '../image-sources.js';

type DomNode = ReturnType<typeof parseDocument>['children'][number];
type DomElement = Extract<DomNode, { attribs: Record<string, string> }>;

export interface PreparedWork {
  /** Per picture, in placeholder order across all chapters: the URLs to try, best first. */
  imageSources: string[][];
  /** Per chapter, its plain text as a stored body's (placeholder pictures have none). */
  plainTexts: string[];
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


/** Replaces the pictures of `html` with placeholders numbered from `sources.length` (at most `maxImages` in all). */
function placehold(html: string, base: string, sources: string[][], maxImages: number): string {
  const document = parseDocument(html);
  const images = DomUtils.findAll((element) => element.name === 'img', document.children as never) as DomElement[];
  for (const image of images) {
    const candidates = pictureCandidates(asSourceElement(image), (raw) => absoluteHttpUrl(raw, base));
    for (const name of SOURCE_ATTRIBUTES) delete image.attribs[name];
    if (candidates.length === 0 || sources.length >= maxImages) {
      DomUtils.removeElement(image as never);
      continue;
    }
    image.attribs.src = `${IMAGE_PLACEHOLDER}${sources.length}`;
    sources.push(candidates);
  }
  for (const source of DomUtils.findAll((element) => element.name === 'source', document.children as never)) DomUtils.removeElement(source);
  return DomUtils.getOuterHTML(document.children as never, { encodeEntities: 'utf8' });
}

/** Prepares `work` in place (see the file comment); at most `maxImages` pictures are kept. */
export function prepareWork(work: SourceWork, maxImages: number): PreparedWork {
  const imageSources: string[][] = [];
  const plainTexts: string[] = [];
  for (const chapter of work.chapters) {
    if (/<img\b/i.test(chapter.contentHtml)) chapter.contentHtml = placehold(chapter.contentHtml, chapter.sourceUrl, imageSources, maxImages);
    plainTexts.push(plainTextOf(sanitizeStoryHtml(chapter.contentHtml)).contentPlain);
  }
  return { imageSources, plainTexts };
}
