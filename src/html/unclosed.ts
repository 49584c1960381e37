import { createRequire } from 'node:module';
import type { Parser as ParserType } from 'htmlparser2';
import { SANITIZATION_POLICY as policy } from './policy.js';

/**
 * The HTML parser sanitize-html itself uses (its own copy of htmlparser2, another version than
 * ours): which elements are raw text differs between versions, and this pass must read the
 * document exactly as the sanitizer will.
 */
const requireFromSanitizer = createRequire(createRequire(import.meta.url).resolve('sanitize-html'));
const { Parser } = requireFromSanitizer('htmlparser2') as { Parser: typeof ParserType };

/**
 * Elements whose content never survives as markup: those dropped with their content, and
 * `title`, which the parser reads as raw text (a tag inside it becomes literal text).
 */
const HIDING = new Set<string>([...policy.droppedWithContent, 'title']);
const HIDING_OPENING = new RegExp(`<(?:${[...HIDING].join('|')})(?![\\w:-])`, 'i');
/** What the tokenizer reads as the start of a tag, comment or doctype: `<` then a letter, `/`, `!` or `?`. */
const TAG_START = /<[A-Za-z/!?]/g;

/** Where the first tag at or after `at` starts, or the end of the document. */
export function nextTagStart(html: string, at: number): number {
  TAG_START.lastIndex = at;
  return TAG_START.exec(html)?.index ?? html.length;
}

interface Unclosed {
  readonly name: string;
  /** Just after the `>` of its start tag. */
  readonly contentStart: number;
}

interface Reading {
  /** The elements of {@link HIDING} opened in the segment and never closed by their own end tag. */
  readonly unclosed: Unclosed[];
  /** Where the segment's last tag, comment or instruction ended: nothing after it was read as markup. */
  readonly lastMarkupEnd: number;
}

/** Reads `html` from `from` on as the sanitizer's parser does. */
function read(html: string, from: number): Reading {
  const open = new Map<string, number[]>();
  const unclosed: Unclosed[] = [];
  let lastMarkupEnd = from;
  const parser: ParserType = new Parser(
    {
      onopentag(name) {
        lastMarkupEnd = from + parser.endIndex + 1;
        if (!HIDING.has(name)) return;
        const starts = open.get(name);
        if (starts === undefined) open.set(name, [lastMarkupEnd]);
        else starts.push(lastMarkupEnd);
      },
      onclosetag(name, isImplied) {
        if (!isImplied) lastMarkupEnd = from + parser.endIndex + 1;
        const contentStart = open.get(name)?.pop();
        // Closed by its own end tag, or a void/self-closed element (closed where it opened).
        if (contentStart === undefined || !isImplied || from + parser.endIndex + 1 === contentStart) return;
        unclosed.push({ name, contentStart });
      },
      oncomment() {
        lastMarkupEnd = from + parser.endIndex + 1;
      },
      onprocessinginstruction() {
        lastMarkupEnd = from + parser.endIndex + 1;
      },
    },
    { decodeEntities: true },
  );
  parser.write(from === 0 ? html : html.slice(from));
  parser.end();
  return { unclosed, lastMarkupEnd };
}

/**
 * The document with an end tag added to every element that hides its content (script, style,
 * textarea, title, noscript... see {@link HIDING}) and is never closed: it ends where the next
 * tag starts, so `<p>One.</p><style>p{}<p>Two.</p>` keeps `<p>Two.</p>` instead of losing the
 * rest of the story into the element (docs/decisions.md, "Story HTML: unclosed elements and
 * image sources").
 *
 * Linear: a raw-text element (script, style...) left open makes the parser read everything after
 * it as text, so the document is read in segments, each from where the last one's raw-text
 * element was closed; no character is parsed twice.
 */
export function closeUnclosedElements(html: string): string {
  if (!HIDING_OPENING.test(html)) return html;
  let kept = '';
  let copied = 0;
  for (let from = 0; from < html.length; ) {
    const { unclosed, lastMarkupEnd } = read(html, from);
    unclosed.sort((a, b) => a.contentStart - b.contentStart);
    for (const element of unclosed) {
      const end = nextTagStart(html, element.contentStart);
      kept += `${html.slice(copied, end)}</${element.name}>`;
      copied = end;
    }
    const last = unclosed[unclosed.length - 1];
    // The last one was read as raw text up to the end when no markup came after its start tag.
    if (last === undefined || last.contentStart < lastMarkupEnd) break;
    from = copied;
    if (from === html.length) break;
  }
  return kept + html.slice(copied);
}
