/**
 * Files to stories, the CPU-heavy half of an import (docs/decisions.md, "File import"); run in the
 * parser worker (src/import/parser-worker.ts), never on the event loop. Each file is parsed by
 * its format, then sanitized and measured exactly as a story body sent to the API is
 * (src/html/story-text.ts). The story rules (names, tags, the URL) are applied on the main
 * thread, where the story is written (src/import/story-input.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { decodeBuffer } from 'encoding-sniffer';
import { deriveStoryText, type StoryText } from '../html/story-text.js';
import { parseEpub } from './epub.js';
import { BOOK_FILE_MAX, formatOf, TEXT_FILE_MAX, type ImportFormat } from './formats.js';
import type { RawStory } from './raw-story.js';
import { parseHtmlFile, parseMarkdownFile, parseTextFile } from './text-formats.js';
import { openZip, type OpenedZip } from './zip.js';

export interface ParsedStory extends Omit<RawStory, 'html'> {
  /** The title found in the file, else the file name without its extension. */
  title: string;
  text: StoryText;
}

/** One file's (or archive entry's) outcome; `file` is the name shown in the job's errors. */
export type ParseResult = { file: string; story: ParsedStory } | { file: string; error: string };

function decodeText(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

async function parseBytes(format: Exclude<ImportFormat, 'zip'>, bytes: Buffer): Promise<RawStory> {
  switch (format) {
    case 'html':
      // The page's own charset (BOM, meta), as a browser would read it.
      return parseHtmlFile(decodeBuffer(bytes));
    case 'txt':
      return parseTextFile(decodeText(bytes));
    case 'md':
      return parseMarkdownFile(decodeText(bytes));
    case 'epub':
      return parseEpub(bytes);
  }
}

function finish(raw: RawStory, name: string): ParsedStory {
  const { html, ...metadata } = raw;
  const fallback = path.basename(name, path.extname(name)).trim() || 'Untitled';
  return { ...metadata, title: raw.title ?? fallback, text: deriveStoryText(html) };
}

function failure(file: string, error: unknown): ParseResult {
  return { file, error: error instanceof Error ? error.message : String(error) };
}

/** Parses one file on disk that is not an archive; `file` names it in the outcome. */
export async function parseFile(filePath: string, file: string): Promise<ParseResult> {
  try {
    const format = formatOf(file);
    if (format === undefined || format === 'zip') throw new Error('not a story file (.html, .htm, .txt, .md or .epub)');
    if (format === 'epub') return { file, story: finish(await parseEpub(filePath), file) };
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

async function parseEntry(zip: OpenedZip, name: string): Promise<RawStory> {
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
