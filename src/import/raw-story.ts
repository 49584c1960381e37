/** What a file parser finds in one file, before sanitizing and the story rules (src/import/parse.ts). */
export interface RawStory {
  title?: string;
  authorName?: string;
  tagNames?: string[];
  summary?: string;
  sourceUrl?: string;
  seriesName?: string;
  volume?: number;
  /** The body, unsanitized: the story HTML rules apply later (docs/decisions.md, "Story HTML"). */
  html: string;
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
