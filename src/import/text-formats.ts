/**
 * HTML, plain text and Markdown files as stories (docs/decisions.md, "File import"). The title
 * comes from the file (`<title>`, else the first `<h1>`; a Markdown `# ` heading); without one,
 * the caller uses the file name.
 */
import { parseHTML } from 'linkedom';
import { splitFrontMatter } from './front-matter.js';
import { escapeHtml, singleChapter, squeeze, type RawStory } from './raw-story.js';

/** An HTML page: its `<title>` (else first `<h1>`) and its body; the sanitizer keeps what the policy allows. */
export function parseHtmlFile(html: string): RawStory {
  const { document } = parseHTML(html);
  const title = squeeze(document.title) ?? squeeze(document.querySelector('title')?.textContent) ?? squeeze(document.querySelector('h1')?.textContent);
  const body = document.body?.innerHTML;
  return { ...(title === undefined ? {} : { title }), chapters: singleChapter(body !== undefined && body.trim() !== '' ? body : html) };
}

/** Paragraphs of text split by blank lines; a single line break inside one is kept as `<br>`. */
export function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/** A plain-text file: paragraphs, no title of its own. */
export function parseTextFile(text: string): RawStory {
  return { chapters: singleChapter(textToHtml(text)) };
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;

const STRONG = /(\*\*|__)(?=\S)([\s\S]*?\S)\1/g;
const EMPHASIS = /(\*|_)(?=\S)([\s\S]*?\S)\1/g;

/** `**strong**`, `__strong__`, `*em*`, `_em_` in already escaped text. */
function inlineMarkdown(escaped: string): string {
  return escaped.replace(STRONG, '<strong>$2</strong>').replace(EMPHASIS, '<em>$2</em>');
}

/** A metadata value as text: pandoc reads it as Markdown, so `*Storm*` is the word Storm. */
function metadataText(value: string | undefined): string | undefined {
  return squeeze(value?.replace(STRONG, '$2').replace(EMPHASIS, '$2'));
}

/**
 * A deliberately small Markdown subset: ATX headings (`#` to `######`), paragraphs, line breaks
 * inside a paragraph, strong and emphasis. Everything else stays as its literal text. A pandoc
 * metadata block at the top gives the title, the author and the date (./front-matter.ts), and is
 * not story text; the date opens the body, as pandoc's own title block shows it. Without a
 * title there, the first level-1 heading is the title (and stays in the body as the first heading).
 */
export function parseMarkdownFile(markdown: string): RawStory {
  const normalized = markdown.replace(/\r\n?/g, '\n');
  const front = splitFrontMatter(normalized);
  const date = metadataText(front?.meta.date);
  const blocks: string[] = date === undefined ? [] : [`<p class="date">${escapeHtml(date)}</p>`];
  let paragraph: string[] = [];
  let title = metadataText(front?.meta.title);
  const authorName = metadataText(front?.meta.author);
  const flush = () => {
    if (paragraph.length > 0) blocks.push(`<p>${inlineMarkdown(escapeHtml(paragraph.join('\n'))).replace(/\n/g, '<br>')}</p>`);
    paragraph = [];
  };
  for (const line of (front?.body ?? normalized).split('\n')) {
    const heading = HEADING.exec(line);
    if (heading !== null) {
      flush();
      const level = (heading[1] as string).length;
      const text = heading[2] as string;
      if (level === 1) title ??= squeeze(text);
      blocks.push(`<h${level}>${inlineMarkdown(escapeHtml(text))}</h${level}>`);
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line.trim());
    }
  }
  flush();
  return { ...(title === undefined ? {} : { title }), ...(authorName === undefined ? {} : { authorNames: [authorName] }), chapters: singleChapter(blocks.join('\n')) };
}
