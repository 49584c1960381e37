/**
 * Reading FanFicFare's title page out of its HTML (the EPUB's `fff_titlepage` document and the
 * HTML output's heading and table), for ./title-page.ts to type.
 */
import { squeeze } from '../raw-story.js';
import type { TitlePageEntry } from './title-page.js';

/** The little of linkedom's DOM this reads. */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  nextSibling: DomNode | null;
  parentElement: DomElement | null;
}
export interface DomElement extends DomNode {
  tagName: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  closest(selector: string): DomElement | null;
}

const LABEL = /^(.+?):$/;

/**
 * Every `<b>Label:</b> value` of the page: the value is what follows the label up to the next
 * `<br>` or label, or, when nothing follows it in its cell (`titlepage_use_table`), the rest of
 * its table row.
 */
export function titlePageEntries(root: DomElement): TitlePageEntry[] {
  const entries: TitlePageEntry[] = [];
  for (const bold of Array.from(root.querySelectorAll('b'))) {
    const label = LABEL.exec(squeeze(bold.textContent) ?? '')?.[1];
    if (label === undefined) continue;
    let value = '';
    for (let node = bold.nextSibling; node !== null; node = node.nextSibling) {
      if (node.nodeName.toLowerCase() === 'br') break;
      if (node.nodeName.toLowerCase() === 'b' && LABEL.test(squeeze(node.textContent) ?? '')) break;
      value += `${node.textContent ?? ''} `;
    }
    if (squeeze(value) === undefined) {
      const row = bold.closest('tr');
      if (row !== null) value = (row.textContent ?? '').replace(bold.textContent ?? '', '');
    }
    const text = squeeze(value);
    if (text !== undefined) entries.push({ label, value: text });
  }
  return entries;
}

/** The heading's `<a class="authorlink">` names, in order (every author, when no package lists them). */
export function authorLinksOf(heading: DomElement | null): string[] {
  if (heading === null) return [];
  return Array.from(heading.querySelectorAll('a'))
    .filter((link) => /\bauthorlink\b/.test(link.getAttribute('class') ?? ''))
    .map((link) => squeeze(link.textContent))
    .filter((name): name is string => name !== undefined);
}
