/**
 * KOReader positions <-> story blocks (docs/decisions.md, "KOReader sync"). KOReader (crengine)
 * names a place in a reflowable book with an xpointer such as
 * `/body/DocFragment[3]/body/p[7]/text().12`: spine item 3 (1-based), then a path of elements,
 * each `name[n]`, the n-th child of that name (the `[n]` left out when it is the only one), then
 * a point. A Storyshelf book's story page holds one top-level element per web-reader block
 * (src/epub/xhtml.ts), so the first step under `body` names the block.
 */
import type { BodyBlock } from '../epub/xhtml.js';

export interface ParsedXPointer {
  /** The 1-based spine item. */
  fragment: number;
  /** The first element under the fragment's body, when the pointer goes that deep. */
  step?: { name: string; rank: number };
}

/** Newer crengine DOM versions write every index, `/body[1]` included; older ones leave out `[1]`. Both are read. */
const XPOINTER = /^\/body(?:\[1\])?\/DocFragment(?:\[(\d{1,6})\])?(?:\/body(?:\[1\])?(?:\/([A-Za-z][\w-]{0,40})(?:\[(\d{1,7})\])?)?)?(?:[/.]|$)/;

/** The spine item and first body step of a KOReader xpointer, or undefined when it is not one (a page number, say). */
export function parseXPointer(text: string): ParsedXPointer | undefined {
  const match = XPOINTER.exec(text);
  if (match === null) return undefined;
  const fragment = match[1] === undefined ? 1 : Number(match[1]);
  if (fragment < 1) return undefined;
  if (match[2] === undefined) return { fragment };
  return { fragment, step: { name: match[2], rank: match[3] === undefined ? 1 : Number(match[3]) } };
}

/**
 * The web block a step names: the `rank`-th top-level element of that name. A block that is not
 * a story block (the title heading, loose text) maps to the next story block, or the last one at
 * the end; undefined when the step names no element of the page (the story changed, or a
 * reader-made wrapper).
 */
export function webIndexOf(blocks: readonly BodyBlock[], step: { name: string; rank: number }): number | undefined {
  let seen = 0;
  const at = blocks.findIndex((block) => block.name === step.name && ++seen === step.rank);
  if (at < 0) return undefined;
  const next = blocks.slice(at).find((block) => block.webIndex !== null);
  const previous = blocks.slice(0, at).findLast((block) => block.webIndex !== null);
  return (next ?? previous)?.webIndex ?? undefined;
}

/** How many web blocks the page has. */
export function webBlockCount(blocks: readonly BodyBlock[]): number {
  return blocks.filter((block) => block.webIndex !== null).length;
}

/**
 * The xpointer of web block `webIndex` in spine item `fragment`, as crengine writes one: the
 * rank only when siblings share the name, `.0` (the element's start) when it has content to
 * point into. Undefined when the page has no such block.
 */
export function xpointerOf(fragment: number, blocks: readonly BodyBlock[], webIndex: number): string | undefined {
  const at = blocks.findIndex((block) => block.webIndex === webIndex);
  if (at < 0) return undefined;
  const name = blocks[at]!.name;
  const same = blocks.filter((block) => block.name === name).length;
  const rank = blocks.slice(0, at + 1).filter((block) => block.name === name).length;
  const empty = name === 'hr';
  return `${fragmentPath(fragment)}/body/${name}${same > 1 ? `[${rank}]` : ''}${empty ? '' : '.0'}`;
}

function fragmentPath(fragment: number): string {
  return `/body/DocFragment[${fragment}]`;
}

/** The start of spine item `fragment`: where a position falls back to when it cannot be exact. */
export function fragmentStart(fragment: number): string {
  return `${fragmentPath(fragment)}.0`;
}
