/**
 * Markup helpers of the OPDS feeds (docs/decisions.md, "OPDS catalog"): the feeds are built from
 * small string templates, and every value that reaches one goes through the one XML escaper
 * (src/lib/xml.ts); nothing else writes markup.
 */
import { escapeXml } from '../lib/xml.js';

/** `<link …/>` with its attributes in order, each escaped; undefined attributes left out. */
export function linkElement(attributes: Readonly<Record<string, string | undefined>>): string {
  const parts = Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${escapeXml(value)}"`);
  return `<link ${parts.join(' ')}/>`;
}
