/**
 * The Atom feed of updates for feed readers (docs/decisions.md, "Sources › Telling the reader"):
 * one entry per entry of the update log, newest first, each saying what its import or refresh
 * changed and linking to the first new chapter in the web reader (else the story's page). Plain
 * Atom 1.0, not OPDS: feed readers show titles, summaries and links, not acquisitions. Built like
 * the catalog's feeds, every value through the one escaper.
 */
import type { UpdateEntryRow } from '../follow/updates-repository.js';
import { updateSummary, updateTitle } from '../follow/present.js';
import { escapeXml } from '../lib/xml.js';
import type { OpdsLinks } from './links.js';
import { linkElement } from './xml.js';

export const ATOM_TYPE = 'application/atom+xml';

function entry(origin: string, row: UpdateEntryRow): string {
  const target = row.firstAdded === null ? `/stories/${row.storyId}` : `/stories/${row.storyId}/read/${row.firstAdded}`;
  return [
    '<entry>',
    `<id>urn:storyshelf:update:${row.id}</id>`,
    `<title type="text">${escapeXml(updateTitle(row))}</title>`,
    `<updated>${escapeXml(row.at)}</updated>`,
    // Absolute: a feed reader opens it in a browser, far from the feed's own address.
    linkElement({ rel: 'alternate', href: `${origin}${target}`, type: 'text/html' }),
    `<summary type="text">${escapeXml(updateSummary(row))}</summary>`,
    '</entry>',
  ].join('\n');
}

/**
 * The feed: `updated` is its newest entry's time (else `fallback`, the library's), so an
 * unchanged log keeps its bytes and ETag. `origin` is the request's scheme and host.
 */
export function updatesFeed(origin: string, links: OpdsLinks, rows: readonly UpdateEntryRow[], fallback: string): string {
  const updated = rows[0]?.at ?? fallback;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    '<id>urn:storyshelf:updates</id>',
    '<title type="text">Storyshelf: updates from the sources</title>',
    `<updated>${escapeXml(updated)}</updated>`,
    '<author><name>Storyshelf</name></author>',
    linkElement({ rel: 'self', href: links.feed('/updates.atom'), type: ATOM_TYPE }),
    linkElement({ rel: 'alternate', href: `${origin}/`, type: 'text/html' }),
    ...rows.map((row) => entry(origin, row)),
    '</feed>',
    '',
  ].join('\n');
}
