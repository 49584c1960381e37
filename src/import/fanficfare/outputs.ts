/**
 * FanFicFare's HTML and TXT outputs as stories in chapters (docs/decisions.md, "File import").
 * Both are one file written by its writers' fixed templates: a title block (`<h1>` and a table
 * of `Label: value` rows; plain `Label: value` lines in TXT), a table of contents, then each
 * chapter under its title (`<a name="section0001"><h2>…</h2></a>` in HTML; a line opening
 * with a tab, which its text wrapping turns into eight spaces, in TXT, whose chapter text is
 * html2text's Markdown). A file without those marks is not FanFicFare's, and the caller reads it
 * as any HTML or text file.
 */
import { parseHTML } from 'linkedom';
import { escapeHtml, squeeze, type RawChapter, type RawStory } from '../raw-story.js';
import { parseMarkdownFile } from '../text-formats.js';
import { titlePageFields, type TitlePageEntry } from './title-page.js';
import { authorLinksOf, titlePageEntries, type DomElement } from './title-page-dom.js';

/** The download time FanFicFare's test sites put in each chapter, as a line of text. */
const TIMESTAMP_LINE = /^Timestamp:\s*\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?$/;

function withoutTimestamps(document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null; remove(): void }> }): void {
  for (const paragraph of Array.from(document.querySelectorAll('p'))) if (TIMESTAMP_LINE.test(squeeze(paragraph.textContent) ?? '')) paragraph.remove();
}

function isHttpUrl(text: string | null | undefined): text is string {
  return typeof text === 'string' && /^https?:\/\/\S+$/i.test(text);
}

/** The story of FanFicFare's HTML output, or undefined when `html` is not one. */
export function parseFanficfareHtml(html: string): RawStory | undefined {
  if (!/<a name="section\d{4}"><h2>/.test(html) || !html.includes('<a name="TOCTOP">')) return undefined;
  const { document } = parseHTML(html);
  const heading = document.querySelector('body > h1') as unknown as DomElement | null;
  const table = document.querySelector('table.full') as unknown as DomElement | null;
  const story: RawStory = { chapters: [], ...(table === null ? {} : titlePageFields(titlePageEntries(table))) };
  const titleLink = heading?.querySelector('a');
  const title = squeeze(titleLink?.textContent);
  if (title !== undefined) story.title = title;
  const sourceUrl = titleLink?.getAttribute('href');
  if (isHttpUrl(sourceUrl)) story.sourceUrl = sourceUrl;
  const authorNames = authorLinksOf(heading);
  if (authorNames.length > 0) story.authorNames = [...new Set(authorNames)];
  for (const anchor of Array.from(document.querySelectorAll('a[name]')) as unknown as DomElement[]) {
    if (!/^section\d{4}$/.test(anchor.getAttribute('name') ?? '')) continue;
    const parts: string[] = [];
    for (let node = anchor.nextSibling; node !== null; node = node.nextSibling) {
      if (node.nodeName.toLowerCase() === 'a' && /^section\d{4}$/.test((node as unknown as DomElement).getAttribute('name') ?? '')) break;
      const element = node as unknown as { outerHTML?: string; textContent: string | null };
      parts.push(element.outerHTML ?? escapeHtml(element.textContent ?? ''));
    }
    const body = parseHTML(`<!doctype html><html><body>${parts.join('')}</body></html>`).document;
    withoutTimestamps(body);
    story.chapters.push({ title: squeeze(anchor.textContent) ?? '', html: body.body?.innerHTML ?? '' });
  }
  return story.chapters.length > 0 ? story : undefined;
}

/** The title block's `Label: value` lines; a wrapped value continues on lines without a label, the summary up to the block's end. */
function txtEntries(lines: readonly string[]): TitlePageEntry[] {
  const entries: TitlePageEntry[] = [];
  for (const line of lines) {
    const match = /^([A-Z][A-Za-z0-9 /]{0,40}):\s(.*)$/.exec(line);
    const last = entries[entries.length - 1];
    if (match !== null && (last === undefined || last.label !== 'Summary')) entries.push({ label: match[1] as string, value: match[2] as string });
    else if (last !== undefined && line.trim() !== '') last.value += ` ${line.trim()}`;
  }
  return entries;
}

const CHAPTER_LINE = /^(?:\t| {8})(\S.*)$/;

/** The story of FanFicFare's TXT output, or undefined when `text` is not one. */
export function parseFanficfareText(text: string): RawStory | undefined {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const tocAt = lines.indexOf('TABLE OF CONTENTS');
  if (tocAt < 0) return undefined;
  const head = lines.slice(0, tocAt);
  const entries = txtEntries(head.slice(head.findIndex((line) => line.startsWith('by ')) + 1));
  if (!entries.some((entry) => entry.label === 'Story URL') || !entries.some((entry) => entry.label === 'Chapters')) return undefined;
  const story: RawStory = { chapters: [], ...titlePageFields(entries) };
  const nonBlank = head.filter((line) => line.trim() !== '');
  const title = squeeze(nonBlank[0]);
  if (title !== undefined) story.title = title;
  const byline = nonBlank[1]?.startsWith('by ') ? squeeze(nonBlank[1].slice(3)) : undefined;
  if (byline !== undefined) story.authorNames = byline.split(/,\s+/);
  const sourceUrl = squeeze(entries.find((entry) => entry.label === 'Story URL')?.value);
  if (isHttpUrl(sourceUrl)) story.sourceUrl = sourceUrl;

  // The contents list names the chapters in order; each chapter opens with its title on an indented line (wrapped at 78 columns).
  let at = tocAt + 1;
  const titles: string[] = [];
  while (at < lines.length && !CHAPTER_LINE.test(lines[at] as string)) {
    const line = squeeze(lines[at]);
    if (line !== undefined) titles.push(line);
    at += 1;
  }
  const starts: Array<{ line: number; bodyFrom: number; title: string }> = [];
  for (const chapterTitle of titles) {
    for (; at < lines.length; at += 1) {
      const first = CHAPTER_LINE.exec(lines[at] as string)?.[1];
      if (first === undefined) continue;
      let heading = squeeze(first) ?? '';
      let next = at + 1;
      while (heading.length < chapterTitle.length && next < lines.length && (lines[next] as string).trim() !== '') heading = `${heading} ${squeeze(lines[next++])}`;
      if (heading === chapterTitle) {
        starts.push({ line: at, bodyFrom: next, title: chapterTitle });
        at = next;
        break;
      }
    }
  }
  starts.forEach((start, index) => {
    const end = starts[index + 1]?.line ?? lines.length;
    const body = lines.slice(start.bodyFrom, end).filter((line) => !TIMESTAMP_LINE.test(line.trim()));
    if (index === starts.length - 1) while (body.length > 0 && ['', 'End file.'].includes((body[body.length - 1] as string).trim())) body.pop();
    story.chapters.push({ title: start.title, html: parseMarkdownFile(body.join('\n')).chapters[0]?.html ?? '' } satisfies RawChapter);
  });
  return story.chapters.length > 0 ? story : undefined;
}
