/** What a file parser finds in one file, before sanitizing and the story rules (src/import/parse.ts). */

/** The kinds a tag may carry at its source (docs/decisions.md, "Tag kinds"); the schema's enum. */
export const TAG_KINDS = ['fandom', 'relationship', 'character', 'warning', 'category', 'rating', 'freeform'] as const;
export type TagKind = (typeof TAG_KINDS)[number];

/** A tag as a file gives it: a kind only when the file says what the tag is (FanFicFare's title page). */
export interface RawTag {
  name: string;
  kind?: TagKind;
}

/** One chapter of a file, in reading order. */
export interface RawChapter {
  /** May be empty: a one-chapter file's only chapter usually is. */
  title: string;
  /** The body, unsanitized: the story HTML rules apply later (docs/decisions.md, "Story HTML"). */
  html: string;
  /** The chapter's own address at its source (FanFicFare's `chapterurl`). */
  sourceUrl?: string;
  /** What a re-import matches the chapter on (its source address, when it has one). */
  sourceKey?: string;
}

/**
 * A picture inside the file (an EPUB's image), to be stored like an imported web picture
 * (docs/decisions.md, "File import"). The chapters name it by `placeholder`, a stored-image URL
 * of the path guard's shape that no stored image has, so the sanitizer keeps the `<img>` until
 * the job puts the stored image's URL in its place (src/import/file-images.ts).
 */
export interface RawImage {
  placeholder: string;
  bytes: Uint8Array;
}

export interface RawStory {
  title?: string;
  /** Every author, in the file's order. */
  authorNames?: string[];
  tags?: RawTag[];
  summary?: string;
  sourceUrl?: string;
  seriesName?: string;
  volume?: number;
  status?: 'complete' | 'in-progress';
  /** ISO 8601 UTC; a date alone is midnight UTC. */
  publishedAt?: string;
  sourceUpdatedAt?: string;
  /** BCP 47. */
  language?: string;
  /** FanFicFare's identity of the work (`fanficfare-uid:<site>-u<author>-s<story>`): what a re-import matches on. */
  uid?: string;
  /** At least one. */
  chapters: RawChapter[];
  images?: RawImage[];
  /** What parsing left out or changed, for the job's result. */
  notes?: string[];
}

/** Text made safe to put between HTML tags. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Collapses runs of white space and trims; undefined when nothing is left. */
export function squeeze(text: string | null | undefined): string | undefined {
  const squeezed = (text ?? '').replace(/\s+/g, ' ').trim();
  return squeezed === '' ? undefined : squeezed;
}

/** One untitled chapter: the whole of a file that has no chapters of its own. */
export function singleChapter(html: string): RawChapter[] {
  return [{ title: '', html }];
}
