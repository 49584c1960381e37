/**
 * The files the importer reads, by extension, and how large they may be: what the upload route
 * and the job check on the main thread, kept apart from the parsers (./parse.ts), which load
 * linkedom, yauzl and encoding-sniffer and run only in the parser worker, so a start-up does not
 * load them (docs/performance.md, "Where each miss goes").
 */
import path from 'node:path';

export const IMPORT_FORMATS = { '.html': 'html', '.htm': 'html', '.xhtml': 'html', '.txt': 'txt', '.md': 'md', '.markdown': 'md', '.epub': 'epub', '.zip': 'zip' } as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[keyof typeof IMPORT_FORMATS];

/** An HTML, text or Markdown story file at most (as large as the largest JSON body the API takes). */
export const TEXT_FILE_MAX = 16 * 1024 * 1024;
/** An EPUB or ZIP file at most, uploaded or inside an archive. */
export const BOOK_FILE_MAX = 100 * 1024 * 1024;

/** The format of a file by its extension; undefined when it is not one the importer reads. */
export function formatOf(name: string): ImportFormat | undefined {
  return (IMPORT_FORMATS as Record<string, ImportFormat>)[path.extname(name).toLowerCase()];
}
