/**
 * Files to stories, the CPU-heavy half of an import (docs/decisions.md, "File import"); run in the
 * parser worker (src/import/parser-worker.ts), never on the event loop. Each file is parsed by
 * its format, then sanitized and measured exactly as a story body sent to the API is
 * (src/html/story-text.ts). The story rules (names, tags, the URL) are applied on the main
 * thread, where the story is written (src/import/story-input.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { deriveStoryText, type StoryText } from '../html/story-text.js';
import { decodeImported } from './decode-text.js';
import { parseEpub } from './epub.js';
import { BOOK_FILE_MAX, formatOf, TEXT_FILE_MAX, type ImportFormat } from './formats.js';
import type { RawStory } from './raw-story.js';
import { parseHtmlFile, parseMarkdownFile, parseTextFile } from './text-formats.js';
import { openZip, type OpenedZip } from './zip.js';

export interface ParsedStory extends Omit<RawStory, 'html'> {
  /** The title found in the file, else the file name without its extension. */
  title: string;
  text: StoryText;
  /** What reading the file lost or changed (src/import/decode-text.ts), for the job's result; absent when nothing. */
  notes?: string[];
}

/** One file's (or archive entry's) outcome; `file` is the name shown in the job's errors. */
export type ParseResult = { file: string; story: ParsedStory } | { file: string; error: string };

/** A file's story before the story rules, and what decoding its bytes lost or changed. */
interface ReadFile {
  raw: RawStory;
  notes: string[];
}

const PARSERS = { html: parseHtmlFile, txt: parseTextFile, md: parseMarkdownFile } as const;

async function parseBytes(format: Exclude<ImportFormat, 'zip'>, bytes: Buffer): Promise<ReadFile> {
  if (format === 'epub') return { raw: await parseEpub(bytes), notes: [] };
  // The one decoder of imported text: a mark, the page's declared charset (HTML), UTF-16, UTF-8, else windows-1252.
  const { text, notes } = decodeImported(bytes, format === 'html' ? 'html' : 'text');
  return { raw: PARSERS[format](text), notes };
}

function finish({ raw, notes }: ReadFile, name: string): ParsedStory {
  const { html, ...metadata } = raw;
  const fallback = path.basename(name, path.extname(name)).trim() || 'Untitled';
  return { ...metadata, title: raw.title ?? fallback, text: deriveStoryText(html), ...(notes.length > 0 ? { notes } : {}) };
}

function failure(file: string, error: unknown): ParseResult {
  return { file, error: error instanceof Error ? error.message : String(error) };
}

/** Parses one file on disk that is not an archive; `file` names it in the outcome. */
export async function parseFile(filePath: string, file: string): Promise<ParseResult> {
  try {
    const format = formatOf(file);
    if (format === undefined || format === 'zip') throw new Error('not a story file (.html, .htm, .txt, .md or .epub)');
    if (format === 'epub') return { file, story: finish({ raw: await parseEpub(filePath), notes: [] }, file) };
    const { size } = await fs.stat(filePath);
    if (size > TEXT_FILE_MAX) throw new Error(`the file is over ${TEXT_FILE_MAX} bytes`);
    return { file, story: finish(await parseBytes(format, await fs.readFile(filePath)), file) };
  } catch (error) {
    return failure(file, error);
  }
}

/** Entries an archive holds that are worth a result: story files and nested archives (refused later); not folders, dot files or macOS metadata. */
function isCandidate(name: string): boolean {
  const base = path.posix.basename(name);
  return !name.startsWith('__MACOSX/') && !base.startsWith('.') && formatOf(name) !== undefined;
}

/** The story entries of an archive, in its order. Throws (the archive's one error) when it is unsafe or unreadable. */
export async function listArchive(filePath: string): Promise<string[]> {
  const zip = await openZip(filePath);
  zip.close();
  return zip.entries.map((entry) => entry.name).filter(isCandidate);
}

async function parseEntry(zip: OpenedZip, name: string): Promise<ReadFile> {
  const format = formatOf(name);
  if (format === undefined) throw new Error('not a story file');
  if (format === 'zip') throw new Error('archives inside archives are not imported');
  const entry = zip.entries.find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error('the entry is no longer in the archive');
  return parseBytes(format, await zip.read(entry, format === 'epub' ? BOOK_FILE_MAX : TEXT_FILE_MAX));
}

/** Parses the named entries of an archive, opening it once; each entry gets its own outcome. */
export async function parseArchiveEntries(filePath: string, archive: string, names: readonly string[]): Promise<ParseResult[]> {
  let zip: OpenedZip;
  try {
    zip = await openZip(filePath);
  } catch (error) {
    return names.map((name) => failure(`${archive}/${name}`, error));
  }
  try {
    const results: ParseResult[] = [];
    for (const name of names) {
      const file = `${archive}/${name}`;
      try {
        results.push({ file, story: finish(await parseEntry(zip, name), name) });
      } catch (error) {
        results.push(failure(file, error));
      }
    }
    return results;
  } finally {
    zip.close();
  }
}
