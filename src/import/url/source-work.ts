/**
 * A whole work as a source engine reads it (docs/decisions.md, "Sources"): what an import writes
 * and what a refresh compares, whichever engine produced it. Plain data, so it crosses the
 * worker-thread boundary by structured clone.
 */

/** The tag kinds a source can give (the `kind` of a typed tag). */
export type SourceTagKind = 'fandom' | 'relationship' | 'character' | 'freeform' | 'warning' | 'category' | 'rating';

export interface SourceTag {
  name: string;
  kind: SourceTagKind;
}

export interface SourceChapter {
  /** The chapter's own title, or "Chapter N" when the source gives none. */
  title: string;
  /** As the source sent it; the story write sanitizes it like every body. */
  contentHtml: string;
  /** The chapter's own address at the source. */
  sourceUrl: string;
  /** The source's identity of the chapter (AO3's chapter id): what a refresh matches on. */
  sourceKey: string;
}

export interface SourceSeries {
  name: string;
  /** The work's position in the series, 1-based. */
  part: number;
  url: string;
}

export interface SourceWork {
  /** The work's canonical address (`https://host/works/ID`), whichever chapter was given. */
  url: string;
  /** The source's identity of the work, e.g. `otwarchive:archiveofourown.org:1001`. */
  uid: string;
  /** The host requests go to (politeness is per site). */
  site: string;
  title: string;
  /** Every author in the source's order. */
  authors: string[];
  /** Sanitized HTML, or null. */
  summary: string | null;
  tags: SourceTag[];
  /** BCP 47, or null when the source's language is not known to us. */
  language: string | null;
  /** `YYYY-MM-DD`, or null. */
  publishedAt: string | null;
  /** `YYYY-MM-DD`: the source's last update (its publication date when it was never updated). */
  sourceUpdatedAt: string | null;
  status: 'complete' | 'in-progress' | null;
  series: SourceSeries[];
  chapters: SourceChapter[];
}
