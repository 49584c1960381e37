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
import { parseFanficfareHtml, parseFanficfareText } from './fanficfare/outputs.js';
import { BOOK_FILE_MAX, formatOf, TEXT_FILE_MAX, type ImportFormat } from './formats.js';
import type { RawChapter, RawStory } from './raw-story.js';
import { parseHtmlFile, parseMarkdownFile, parseTextFile } from './text-formats.js';
import { openZip, type OpenedZip } from './zip.js';

/** One chapter, sanitized and measured. */
export interface ParsedChapter extends Omit<RawChapter, 'html'> {
  text: StoryText;
}

export interface ParsedStory extends Omit<RawStory, 'chapters' | 'notes'> {
  /** The title found in the file, else the file name without its extension. */
  title: string;
  /** At least one, in reading order. */
  chapters: ParsedChapter[];
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

/** FanFicFare's own HTML and TXT outputs are read for their chapters and metadata; any other file as it is. */
const PARSERS = {
  html: (text: string) => parseFanficfareHtml(text) ?? parseHtmlFile(text),
  txt: (text: string) => parseFanficfareText(text) ?? parseTextFile(text),
  md: parseMarkdownFile,
} as const;

async function parseBytes(format: Exclude<ImportFormat, 'zip'>, bytes: Buffer): Promise<ReadFile> {
  if (format === 'epub') return { raw: await parseEpub(bytes), notes: [] };
  // The one decoder of imported text: a mark, the page's declared charset (HTML), UTF-16, UTF-8, else windows-1252.
  const { text, notes } = decodeImported(bytes, format === 'html' ? 'html' : 'text');
  return { raw: PARSERS[format](text), notes };
}

function hasContent(chapter: ParsedChapter): boolean {
  return chapter.text.wordCount > 0 || (chapter.text.contentHtml ?? '').includes('<img');
}

/**
 * The chapters sanitized and measured; blank ones (a separator page) left out unless nothing else
 * is left. A source key is what a re-import matches a chapter on, so it must be unique in the
 * story: a repeated one (FanFicFare's test4 site gives two chapters one address) gets its ordinal as a URL fragment (a second one ends in a hash sign and 2).
 */
function parsedChapters(raw: readonly RawChapter[]): ParsedChapter[] {
  const chapters = raw.map(({ html, ...chapter }) => ({ ...chapter, text: deriveStoryText(html) }));
  const kept = chapters.filter(hasContent);
  const seen = new Map<string, number>();
  for (const chapter of kept) {
    if (chapter.sourceKey === undefined) continue;
    const count = (seen.get(chapter.sourceKey) ?? 0) + 1;
    seen.set(chapter.sourceKey, count);
    if (count > 1) chapter.sourceKey = `${chapter.sourceKey}#${count}`;
  }
  return kept.length > 0 ? kept : chapters.slice(0, 1);
}

function finish({ raw, notes }: ReadFile, name: string): ParsedStory {
  const { chapters: rawChapters, notes: rawNotes = [], ...metadata } = raw;
  const fallback = path.basename(name, path.extname(name)).trim() || 'Untitled';
  const chapters = parsedChapters(rawChapters);
  const allNotes = [...notes, ...rawNotes];
  return { ...metadata, title: raw.title ?? fallback, chapters, ...(allNotes.length > 0 ? { notes: allNotes } : {}) };
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
