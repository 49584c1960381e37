import { IMAGE_URL_PREFIX } from '../images/image-path.js';

/**
 * The one definition of what story HTML may contain. The sanitizer is built from it and
 * `GET /api/config/html-sanitization` returns it, so clients and server can never disagree
 * (docs/decisions.md, "Story HTML"). In the attribute maps the key `*` means every tag.
 */
export const SANITIZATION_POLICY = Object.freeze({
  allowedTags: Object.freeze([
    'p', 'br', 'hr', 'div', 'span', 'blockquote', 'pre', 'code',
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
    'ul', 'ol', 'li', 'dl', 'dt', 'dd',
    'b', 'strong', 'i', 'em', 'u', 's', 'strike', 'del', 'ins', 'mark', 'small', 'sub', 'sup', 'q', 'cite', 'abbr',
    'a', 'img', 'figure', 'figcaption',
    'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
  ]),
  allowedAttributes: Object.freeze({
    '*': Object.freeze(['class', 'style', 'title', 'lang', 'dir']),
    a: Object.freeze(['href', 'rel']),
    img: Object.freeze(['src', 'alt', 'width', 'height']),
    ol: Object.freeze(['start', 'type']),
    td: Object.freeze(['colspan', 'rowspan']),
    th: Object.freeze(['colspan', 'rowspan', 'scope']),
    abbr: Object.freeze(['title']),
  }) as Readonly<Record<string, readonly string[]>>,
  allowedCssProperties: Object.freeze([
    'color', 'background-color', 'text-align', 'text-decoration', 'text-indent',
    'font-weight', 'font-style', 'font-size', 'font-family', 'margin-left', 'padding-left',
  ]),
  /** Stripped wherever they appear, whatever the tag (`on*` covers every event handler). */
  removedAttributes: Object.freeze({
    '*': Object.freeze(['on*', 'id', 'name', 'srcset', 'formaction', 'xmlns']),
    a: Object.freeze(['target', 'ping']),
  }) as Readonly<Record<string, readonly string[]>>,
  linkSchemes: Object.freeze(['http', 'https', 'mailto']),
  imageSchemes: Object.freeze(['http', 'https']),
  /** The only relative image source kept: this service's own images. */
  ownImagePrefix: IMAGE_URL_PREFIX,
  linkRel: 'noopener noreferrer nofollow',
  /**
   * Block elements not on the list become the listed element that shows them the same way, so
   * their text keeps its own lines: removed outright, `<section>One</section><section>Two</section>`
   * would glue into "OneTwo" in the story and its words.
   */
  renamedTags: Object.freeze({
    address: 'div', article: 'div', aside: 'div', center: 'div', details: 'div', dialog: 'div',
    fieldset: 'div', footer: 'div', form: 'div', header: 'div', hgroup: 'div', legend: 'div',
    main: 'div', nav: 'div', search: 'div', section: 'div', summary: 'div',
    menu: 'ul', dir: 'ul', listing: 'pre', plaintext: 'pre',
  }) as Readonly<Record<string, string>>,
  /** Removed together with everything inside them; other unlisted tags keep their text. */
  droppedWithContent: Object.freeze([
    'script', 'style', 'textarea', 'option', 'xmp', 'iframe', 'object', 'embed', 'svg', 'math', 'noscript', 'template',
  ]),
});

export const SANITIZATION_DESCRIPTION =
  'Story HTML is sanitized on every write with exactly these settings. Tags not listed are removed ' +
  '(their text kept), except script, style, textarea, option, xmp, iframe, object, embed, svg, math, ' +
  'noscript and template, which go with their content; form and its controls never survive. Attributes not listed for a tag (or for "*", every tag) are removed. Links keep ' +
  'only http, https and mailto URLs (relative links are kept) and get rel="noopener noreferrer ' +
  'nofollow"; images keep only http and https URLs and this service\'s own images ' +
  '(/api/files/images/covers/<file>, avatars/<file> or inline/<file>, no ".." or backslash, also percent-encoded); an image ' +
  'with any other source is removed with its alt text. An element that goes with its content but is never closed ends at the next tag. ' +
  'Inline styles keep only the listed CSS properties. A document whose elements nest more than ' +
  '10,000 levels deep keeps only its text.';
