/**
 * Story HTML -> EPUB XHTML (docs/decisions.md, "EPUB export"). The stored HTML is already
 * sanitized (src/html/sanitize.ts) but is HTML, not XHTML, and may break HTML's content models
 * (a list item outside a list, a table cell outside a row, a block inside a paragraph), which
 * epubcheck rejects. htmlparser2 parses it the way the sanitizer did; this module then writes
 * XML itself, renaming or wrapping what does not fit, because those repairs happen while walking
 * (a serializer of the parsed tree could only copy it).
 *
 * One rule the repairs never break: each top-level element of the story becomes exactly one
 * top-level element of the XHTML body, in order. The web reader's position is the index of a
 * top-level element (src/web/client/reader.ts), and KOReader's is an xpointer into this body, so
 * that rule is what lets KOReader sync translate one into the other paragraph-exactly
 * (docs/decisions.md, "KOReader sync"). Top-level text and inline elements are given a block of
 * their own so no reader has to box mixed content (which would change the xpointers).
 */
import { DomUtils, ElementType, parseDocument } from 'htmlparser2';
import { storedImageOfSource } from '../images/inline-images.js';
import { escapeXml } from '../lib/xml.js';

type DomNode = ReturnType<typeof parseDocument>['children'][number];
type DomElement = Extract<DomNode, { attribs: Record<string, string> }>;
type DomText = Extract<DomNode, { type: typeof ElementType.Text }>;

function isElement(node: DomNode): node is DomElement {
  return ElementType.isTag(node);
}

function isText(node: DomNode): node is DomText {
  return node.type === ElementType.Text;
}

/** One top-level element of a story's XHTML body: its element name and the web reader's block index (null: not a story block). */
export interface BodyBlock {
  name: string;
  webIndex: number | null;
}

/** A story page: the XHTML file's text and its top-level blocks, title heading first. */
export interface StoryDocument {
  xhtml: string;
  blocks: BodyBlock[];
}

/** Maps an image `src` of the story to its path inside the book, or undefined to show its alt text instead. */
export type ImageResolver = (src: string) => string | undefined;

const VOID = new Set(['br', 'hr', 'img']);
const PHRASING = new Set(['br', 'b', 'strong', 'i', 'em', 'u', 's', 'strike', 'del', 'ins', 'mark', 'small', 'sub', 'sup', 'q', 'cite', 'abbr', 'code', 'a', 'img', 'span']);
/** Elements whose content must be phrasing: a block inside one becomes a span. */
const PHRASING_ONLY = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'span', 'b', 'strong', 'i', 'em', 'u', 's', 'mark', 'small', 'sub', 'sup', 'q', 'cite', 'abbr', 'code', 'dt']);
/** Elements that take their parent's content model. */
const TRANSPARENT = new Set(['a', 'del', 'ins']);
/** Elements valid only under one of these parents; elsewhere they become a div. */
const REQUIRED_PARENT: Readonly<Record<string, readonly string[]>> = {
  li: ['ul', 'ol'],
  dt: ['dl'],
  dd: ['dl'],
  tr: ['thead', 'tbody', 'tfoot'],
  td: ['tr'],
  th: ['tr'],
  thead: ['table'],
  tbody: ['table'],
  tfoot: ['table'],
  caption: ['table'],
  figcaption: ['figure'],
};
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Attribute checks: a value failing one is dropped, since epubcheck validates each against HTML's grammar. */
const GLOBAL_ATTRIBUTES: Readonly<Record<string, (value: string) => string | undefined>> = {
  class: (v) => v,
  style: (v) => v,
  title: (v) => v,
  lang: (v) => (/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(v) ? v : undefined),
  dir: (v) => (/^(?:ltr|rtl|auto)$/i.test(v) ? v.toLowerCase() : undefined),
};
const OWN_ATTRIBUTES: Readonly<Record<string, Readonly<Record<string, (value: string) => string | undefined>>>> = {
  ol: { start: (v) => (/^-?\d{1,9}$/.test(v) ? v : undefined), type: (v) => (/^[1aAiI]$/.test(v) ? v : undefined) },
  td: { colspan: (v) => (/^[1-9]\d{0,2}$/.test(v) ? v : undefined), rowspan: (v) => (/^\d{1,4}$/.test(v) ? v : undefined) },
  th: {
    colspan: (v) => (/^[1-9]\d{0,2}$/.test(v) ? v : undefined),
    rowspan: (v) => (/^\d{1,4}$/.test(v) ? v : undefined),
    scope: (v) => (/^(?:row|col|rowgroup|colgroup)$/.test(v) ? v : undefined),
  },
};

/**
 * A link target the book can keep: an absolute http(s) or mailto URL, normalized (spaces and
 * the like percent-encoded) so it is a valid URL. Relative links point into the web app, not the
 * book, so they go (the text stays).
 */
function bookHref(raw: string): string | undefined {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function attributes(element: DomElement, name: string): string {
  const own = OWN_ATTRIBUTES[name] ?? {};
  let out = '';
  for (const [key, raw] of Object.entries(element.attribs)) {
    const check = GLOBAL_ATTRIBUTES[key] ?? own[key];
    const value = check?.(raw);
    if (value !== undefined) out += ` ${key}="${escapeXml(value)}"`;
  }
  if (name === 'a' && element.attribs.href !== undefined) {
    const href = bookHref(element.attribs.href);
    if (href !== undefined) out += ` href="${escapeXml(href)}"`;
  }
  return out;
}

interface Context {
  /** The emitted name of the parent element. */
  parent: string;
  /** Inside an element whose content must be phrasing. */
  phrasing: boolean;
  /** Inside a link (links do not nest). */
  inLink: boolean;
}

class Writer {
  out = '';
  /** Nodes already written elsewhere (what a table fosters out), passed over when met again. */
  skip: ReadonlySet<DomNode> = new Set();
  constructor(private readonly resolveImage: ImageResolver) {}

  node(node: DomNode, context: Context): void {
    if (this.skip.has(node)) return;
    if (isText(node)) this.out += escapeXml(node.data);
    else if (isElement(node)) this.element(node, context);
    // Comments, CDATA and processing instructions carry nothing a reader shows.
  }

  children(nodes: readonly DomNode[], context: Context): void {
    for (const node of nodes) this.node(node, context);
  }

  /** True for what a structure passes over: whitespace, comments, nodes written elsewhere. */
  private passes(node: DomNode): boolean {
    return isBlank(node) || this.skip.has(node);
  }

  /** The name `element` is written under here: obsolete, misplaced or blocks-in-phrasing renamed. */
  private nameIn(element: DomElement, context: Context): string {
    let name = element.name === 'strike' ? 's' : element.name;
    const parents = REQUIRED_PARENT[name];
    if (parents !== undefined && !parents.includes(context.parent)) name = 'div';
    if (HEADINGS.has(name) && context.parent === 'th') name = 'div';
    if (context.phrasing && !PHRASING.has(name)) name = 'span';
    if (name === 'a' && context.inLink) name = 'span';
    return name;
  }

  element(element: DomElement, context: Context): void {
    const name = this.nameIn(element, context);
    if (name === 'img') {
      this.image(element);
      return;
    }
    const inner: Context = {
      parent: name,
      phrasing: PHRASING_ONLY.has(name) || (TRANSPARENT.has(name) && context.phrasing),
      inLink: context.inLink || name === 'a',
    };
    if (VOID.has(name)) {
      this.out += `<${name}${attributes(element, name)}/>`;
      return;
    }
    this.out += `<${name}${attributes(element, name)}>`;
    if (name === 'ul' || name === 'ol') this.wrapped(element.children, ['li'], 'li', inner);
    else if (name === 'dl') this.wrapped(element.children, ['dt', 'dd'], 'dd', inner);
    else if (name === 'tr') this.wrapped(element.children, ['td', 'th'], 'td', inner);
    else if (name === 'thead' || name === 'tbody' || name === 'tfoot') this.rows(element.children, inner);
    else if (name === 'table') this.table(element.children, inner);
    else if (name === 'figure') this.figure(element.children, inner);
    else this.children(element.children, inner);
    this.out += `</${name}>`;
  }

  /** An own JPEG or PNG image, embedded; anything else becomes its alt text (never fetched). */
  private image(element: DomElement): void {
    const alt = element.attribs.alt ?? '';
    const src = element.attribs.src === undefined ? undefined : this.resolveImage(element.attribs.src);
    if (src === undefined) {
      if (alt !== '') this.out += `<span class="image-alt">${escapeXml(alt)}</span>`;
      return;
    }
    const size = ['width', 'height'].map((key) => (/^\d{1,5}$/.test(element.attribs[key] ?? '') ? ` ${key}="${element.attribs[key]}"` : '')).join('');
    this.out += `<img src="${escapeXml(src)}" alt="${escapeXml(alt)}"${size}/>`;
  }

  /**
   * Children of an element that takes only `allowed` children: each run of other nodes (but
   * whitespace) goes into one `wrapper` element.
   */
  private wrapped(nodes: readonly DomNode[], allowed: readonly string[], wrapper: string, context: Context): void {
    let run: DomNode[] = [];
    const flush = () => {
      if (run.every((node) => this.passes(node))) return void (run = []);
      this.out += `<${wrapper}>`;
      this.children(run, { ...context, parent: wrapper, phrasing: false });
      this.out += `</${wrapper}>`;
      run = [];
    };
    for (const node of nodes) {
      if (isElement(node) && allowed.includes(node.name)) {
        flush();
        this.node(node, context);
      } else run.push(node);
    }
    flush();
  }

  /** Rows of a table section: anything but a row becomes a one-cell row. */
  private rows(nodes: readonly DomNode[], context: Context): void {
    for (const node of nodes) {
      if (this.passes(node)) continue;
      if (isElement(node) && node.name === 'tr') this.node(node, context);
      else {
        this.out += '<tr><td>';
        this.node(node, { ...context, parent: 'td', phrasing: false });
        this.out += '</td></tr>';
      }
    }
  }

  /**
   * A table's children in the order HTML requires: the first caption, the first thead, the
   * body rows (loose rows grouped into tbody; other sections as tbody), the first tfoot.
   */
  private table(nodes: readonly DomNode[], context: Context): void {
    const first = (name: string) => nodes.find((node) => isElement(node) && node.name === name);
    const caption = first('caption');
    const head = first('thead');
    const foot = first('tfoot');
    if (caption !== undefined) this.node(caption, context);
    if (head !== undefined) this.node(head, context);
    let loose: DomNode[] = [];
    const flush = () => {
      if (loose.some((node) => !this.passes(node))) {
        this.out += '<tbody>';
        this.rows(loose, { ...context, parent: 'tbody' });
        this.out += '</tbody>';
      }
      loose = [];
    };
    for (const node of nodes) {
      if (node === caption || node === head || node === foot) continue;
      if (isElement(node) && ['tbody', 'thead', 'tfoot', 'caption'].includes(node.name)) {
        flush();
        this.out += '<tbody>';
        this.rows(node.children, { ...context, parent: 'tbody' });
        this.out += '</tbody>';
      } else loose.push(node);
    }
    flush();
    if (foot !== undefined) this.node(foot, context);
  }

  /** A figure's caption must be its first or last element: any other becomes a div. */
  private figure(nodes: readonly DomNode[], context: Context): void {
    const elements = nodes.filter((node) => isElement(node));
    const isCaption = (node: DomNode | undefined) => node !== undefined && isElement(node) && node.name === 'figcaption';
    const keep = isCaption(elements[0]) ? elements[0] : isCaption(elements.at(-1)) ? elements.at(-1) : undefined;
    for (const node of nodes) this.node(node, node === keep || !isCaption(node) ? context : { ...context, parent: 'div' });
  }
}

function isBlank(node: DomNode): boolean {
  return (isText(node) && node.data.trim() === '') || (!isText(node) && !isElement(node));
}

const TOP: Context = { parent: 'body', phrasing: false, inLink: false };

/** Table parts whose tags a browser ignores outside a table. */
const TABLE_PARTS = new Set(['caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);
/** What may sit directly in a table, a table section and a row without being moved out. */
const TABLE_CHILDREN: Readonly<Record<string, ReadonlySet<string>>> = {
  table: new Set(['caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']),
  thead: new Set(['tr', 'td', 'th']),
  tbody: new Set(['tr', 'td', 'th']),
  tfoot: new Set(['tr', 'td', 'th']),
  tr: new Set(['td', 'th']),
};

/**
 * The nodes a browser's HTML parser moves out of a table and places just before it: text (but
 * whitespace) and elements that sit directly in the table, a section or a row instead of in a
 * cell. In document order.
 */
function fosterParented(table: DomElement): DomNode[] {
  const out: DomNode[] = [];
  const walk = (parent: DomElement) => {
    const allowed = TABLE_CHILDREN[parent.name]!;
    for (const child of parent.children) {
      if (isText(child)) {
        if (child.data.trim() !== '') out.push(child);
      } else if (isElement(child)) {
        if (!allowed.has(child.name)) out.push(child);
        else if (TABLE_CHILDREN[child.name] !== undefined) walk(child);
      }
    }
  };
  walk(table);
  return out;
}

/**
 * The stored images a story shows, in document order, duplicates kept once: the `<kind>/<name>`
 * path of every `img` whose `src` names one (src/images/inline-images.ts decides which do). The
 * caller loads them before {@link storyBody}.
 */
export function ownImagePaths(html: string): string[] {
  const document = parseDocument(html);
  const paths = DomUtils.getElementsByTagName('img', document.children, true).map((image) => storedImageOfSource(image.attribs.src ?? ''));
  return [...new Set(paths.filter((relPath): relPath is string => relPath !== undefined))];
}

/** A chapter's text as top-level blocks: each block's XHTML and what it is, in order. */
export interface ChapterBlocks {
  pieces: string[];
  blocks: BodyBlock[];
}

/**
 * A chapter's (or a whole story's) HTML as top-level blocks: one per top-level element of the
 * HTML (the web reader's blocks, in order, numbered from 0), with loose top-level text in
 * `div class="loose"` blocks that have no web index. A long chapter is split between blocks
 * (src/epub/documents.ts), so each piece is kept apart.
 */
export function chapterBlocks(html: string, resolveImage: ImageResolver): ChapterBlocks {
  const writer = new Writer(resolveImage);
  const pieces: string[] = [];
  const blocks: BodyBlock[] = [];
  let webIndex = 0;
  let loose = '';
  const flushLoose = () => {
    if (loose.trim() !== '') {
      pieces.push(`<div class="loose">${loose}</div>`);
      blocks.push({ name: 'div', webIndex: null });
    }
    loose = '';
  };
  const topLevel = (node: DomNode): void => {
    if (isText(node)) {
      loose += escapeXml(node.data);
      return;
    }
    if (!isElement(node)) return;
    // A browser ignores a table part's tag outside a table (its content stays): so does the book.
    if (TABLE_PARTS.has(node.name)) return void node.children.forEach(topLevel);
    // What a browser moves out of a table ("foster parenting") comes before it, as blocks of their own.
    if (node.name === 'table') {
      const fostered = fosterParented(node);
      fostered.forEach(topLevel);
      writer.skip = new Set(fostered);
    }
    flushLoose();
    const name = node.name;
    const isBlock = !PHRASING.has(name);
    writer.out = '';
    if (isBlock) writer.element(node, TOP);
    else {
      // An inline element (or an image) at the top: a block of its own, so it stays one block.
      writer.out += `<div class="${name === 'img' ? 'image' : 'inline'}">`;
      writer.element(node, { ...TOP, parent: 'div' });
      writer.out += '</div>';
    }
    writer.skip = new Set();
    pieces.push(writer.out);
    // The emitted top-level name: list items and the like outside their parent became a div.
    const emitted = isBlock ? (REQUIRED_PARENT[name] !== undefined ? 'div' : name) : 'div';
    blocks.push({ name: emitted, webIndex: webIndex++ });
  };
  parseDocument(html).children.forEach(topLevel);
  flushLoose();
  return { pieces, blocks };
}

/**
 * The body of a whole story's XHTML page and its top-level blocks: the title as an `h1`, then
 * {@link chapterBlocks}. What books made before chapters held, one page per story: KOReader sync
 * still reads positions in them this way.
 */
export function storyBody(title: string, html: string, resolveImage: ImageResolver): { body: string; blocks: BodyBlock[] } {
  const { pieces, blocks } = chapterBlocks(html, resolveImage);
  const body = [`<h1 class="story-title">${escapeXml(title)}</h1>`, ...pieces].join('\n');
  return { body: body.trimEnd(), blocks: [{ name: 'h1', webIndex: null }, ...blocks] };
}
