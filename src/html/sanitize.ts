import sanitizeHtml from 'sanitize-html';
import { storedImageOfSource } from '../images/inline-images.js';
import { SANITIZATION_POLICY as policy } from './policy.js';
import { closeUnclosedElements, nextTagStart } from './unclosed.js';

/** Each value of an allowed CSS property must be plain: no url(), expression() or the like. */
const SAFE_CSS_VALUE = /^(?![\s\S]*(?:url|expression|image-set|var|attr)\s*\()[-\w\s#%.,()'"!/]*$/i;

const ABSOLUTE_HTTP = /^https?:\/\//i;

/**
 * An absolute http(s) URL, or one of this service's own images: the images route followed by a
 * path the image path guard accepts (`covers/<name>.<ext>`, `avatars/...`), so no `..`, `%2e%2e`
 * or backslash can point the browser at another same-origin path (docs/decisions.md, "Story HTML").
 */
function isAllowedImageSource(src: string): boolean {
  return ABSOLUTE_HTTP.test(src.trim()) || storedImageOfSource(src) !== undefined;
}

/** sanitize-html options derived from the policy, built once per process. */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...policy.allowedTags],
  allowedAttributes: Object.fromEntries(
    Object.entries(policy.allowedAttributes).map(([tag, attributes]) => [tag, [...attributes]]),
  ),
  allowedStyles: {
    '*': Object.fromEntries(policy.allowedCssProperties.map((property) => [property, [SAFE_CSS_VALUE]])),
  },
  allowedSchemes: [...policy.linkSchemes],
  allowedSchemesByTag: { img: [...policy.imageSchemes] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: [...policy.droppedWithContent],
  transformTags: {
    ...Object.fromEntries(Object.entries(policy.renamedTags).map(([from, to]) => [from, to])),
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: policy.linkRel } }),
    img: (tagName, attribs) => {
      const kept = Object.entries(attribs).filter(([name, value]) => name !== 'src' || isAllowedImageSource(value));
      return { tagName, attribs: Object.fromEntries(kept) };
    },
  },
  // An image whose source was not allowed has nothing left to show.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

/**
 * How deep elements may nest before a document is treated as hostile. The HTML parser under the
 * sanitizer (htmlparser2) keeps its open elements in an array it shifts at the front, so its cost
 * grows with the square of the nesting depth: 100,000 nested `<b>` (300 KB) took 4 s, and a
 * body of a few MB would have blocked the service for hours. Real stories nest a few dozen
 * levels; sloppy HTML that never closes its `<font>` or `<div>` stays far below this.
 */
export const MAX_NESTING = 10_000;

/**
 * Elements that never deepen the parser's stack for long: void elements, and those whose start
 * tag closes an open one of their kind (`<p>a<p>b`, `<li>`, table cells and rows...).
 */
const FLAT_ELEMENTS = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
  'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'caption', 'colgroup', 'option', 'optgroup', 'rb', 'rt', 'rp', 'rtc',
]);

function isNameChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x3a;
}

/**
 * True when the document opens more than `limit` elements inside one another, by a linear scan
 * that never under-counts what the parser will keep open: every start tag of a non-flat element
 * deepens, every end tag undoes one. (Tags inside comments or scripts count too; that only errs
 * towards "too deep".)
 */
export function nestsDeeperThan(html: string, limit: number): boolean {
  let depth = 0;
  let nextGt = -1;
  for (let lt = html.indexOf('<'); lt !== -1; lt = html.indexOf('<', lt + 1)) {
    let at = lt + 1;
    const closing = html.charCodeAt(at) === 0x2f;
    if (closing) at += 1;
    const nameStart = at;
    while (at < html.length && isNameChar(html.charCodeAt(at))) at += 1;
    const first = html.charCodeAt(nameStart) | 0x20;
    if (at === nameStart || first < 0x61 || first > 0x7a) continue;
    if (nextGt < at) {
      nextGt = html.indexOf('>', at);
      if (nextGt === -1) return false; // no tag is complete from here on
    }
    if (FLAT_ELEMENTS.has(html.slice(nameStart, at).toLowerCase())) continue;
    if (closing) depth = Math.max(0, depth - 1);
    else if (html.charCodeAt(nextGt - 1) !== 0x2f) {
      depth += 1;
      if (depth > limit) return true;
    }
  }
  return false;
}

const DROPPED_OPENING = new RegExp(`<(${policy.droppedWithContent.join('|')})\\b`, 'gi');

/**
 * The document without the elements that go with their content (script, style...): each from
 * its start tag to its end tag, or, when it is never closed, to the next tag (as
 * closeUnclosedElements decides for the parser). Linear: every search starts where the last one
 * stopped.
 */
function withoutDroppedElements(html: string): string {
  let kept = '';
  let from = 0;
  // Names with no end tag anywhere after the given offset: later ones of the name need no search.
  const unclosedFrom = new Map<string, number>();
  DROPPED_OPENING.lastIndex = 0;
  for (let opening = DROPPED_OPENING.exec(html); opening !== null; opening = DROPPED_OPENING.exec(html)) {
    kept += html.slice(from, opening.index);
    const name = (opening[1] as string).toLowerCase();
    const closing = new RegExp(`</${name}\\s*>`, 'gi');
    closing.lastIndex = DROPPED_OPENING.lastIndex;
    const searched = (unclosedFrom.get(name) ?? Infinity) > closing.lastIndex && closing.exec(html) !== null;
    if (!searched) unclosedFrom.set(name, Math.min(unclosedFrom.get(name) ?? Infinity, DROPPED_OPENING.lastIndex));
    from = searched ? closing.lastIndex : nextTagStart(html, DROPPED_OPENING.lastIndex);
    DROPPED_OPENING.lastIndex = from;
  }
  return kept + html.slice(from);
}

/**
 * Sanitizes story HTML with the one policy (docs/decisions.md, "Story HTML"): never rejects,
 * only strips. An element that hides its content and is never closed ends at the next tag
 * ({@link closeUnclosedElements}), so it cannot swallow the rest of the story. A document nested deeper than {@link MAX_NESTING} elements keeps its text and loses all
 * its markup (dropped elements and then every tag cut out by linear scans before the sanitizer
 * sees it), so no body can stall the service.
 */
export function sanitizeStoryHtml(html: string): string {
  if (nestsDeeperThan(html, MAX_NESTING)) return sanitizeHtml(withoutDroppedElements(html).replace(/<[^<>]*>/g, ' '), OPTIONS);
  return sanitizeHtml(closeUnclosedElements(html), OPTIONS);
}
