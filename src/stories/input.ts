/**
 * Turns a schema-valid story create/update body into what the service writes, enforcing the
 * rules a schema cannot say (docs/decisions.md, "Shapes and values"): titles and names
 * trimmed and not blank, either an id or a name for the author and the series, tag names
 * cleaned as the tags service cleans them, and the body HTML sanitized and derived.
 *
 * Every offending field is reported at once, in one 400 `details`.
 */
import { findAuthorById } from '../authors/repository.js';
import type { DbOrTx } from '../db/open.js';
import type { ErrorDetails } from '../errors.js';
import { parseImagePathOf } from '../images/image-path.js';
import { deriveStoryText, type StoryText } from '../html/story-text.js';
import { deriveStoryTexts } from '../html/text-thread.js';
import { assembleWork, deriveChapter, textAsChapter, type ChapterText } from './chapter-text.js';
import type { TagKind } from '../schemas/tag.js';
import { cleanName } from '../lib/names.js';
import type { StoryCreateBody, StoryUpdateBody } from '../schemas/story.js';
import { findSeriesById } from '../series/repository.js';
import { cleanTagName } from '../tags/service.js';
import { collect, throwIfInvalid } from '../validation.js';

/** An author or series choice: absent (untouched), `null` (none), an id, or a name to find or create. */
export type LinkChoice = undefined | null | { id: string } | { name: string };

/** Only the fields the body gave; `undefined` means "leave as it is". */
export interface StoryInput {
  title?: string;
  summary?: string | null;
  description?: string | null;
  /**
   * Present when the body gave `contentHtml` (even `null`) or `chapters`: the chapters that
   * replace the story's, and the whole work assembled from them (the story row's columns).
   */
  chapters?: ChapterText[];
  text?: StoryText;
  /** Authors after the first (`author`), in order; present when the body gave `authorNames`. */
  coauthorNames?: string[];
  /** The kinds of the tags the input names, by name key (src/lib/names.ts `nameKey`): importers give them, a body has none. */
  tagKinds?: ReadonlyMap<string, TagKind>;
  status?: 'complete' | 'in-progress' | null;
  publishedAt?: string | null;
  sourceUpdatedAt?: string | null;
  language?: string | null;
  sourceUrl?: string | null;
  volume?: number | null;
  rating?: number | null;
  author: LinkChoice;
  series: LinkChoice;
  /** Cleaned (trimmed, lowercased) names; `[]` when the body cleared the tags. */
  tagNames?: string[];
  /**
   * `covers/<file>` to attach (its shape checked here, its existence by the service before the
   * write), or `null` to remove the cover.
   */
  coverPath?: string | null;
}

const BLANK = 'must not be blank';

function parseLink(
  details: ErrorDetails,
  fields: { id: string; name: string },
  id: string | null | undefined,
  name: string | null | undefined,
): LinkChoice {
  if (id !== undefined && name !== undefined && (id !== null || name !== null)) {
    const message = `give either ${fields.id} or ${fields.name}, not both`;
    details[fields.id] = message;
    details[fields.name] = message;
    return undefined;
  }
  if (id !== undefined) return id === null ? null : { id };
  if (name === undefined || name === null) return name;
  const cleaned = cleanName(name);
  if (cleaned === '') {
    details[fields.name] = BLANK;
    return undefined;
  }
  return { name: cleaned };
}

/** The `details` message of an `authorId` or `seriesId` that names no row. */
export function unknownLinkMessage(field: 'authorId' | 'seriesId'): string {
  return `no ${field === 'authorId' ? 'author' : 'series'} has this id`;
}

/**
 * Notes an id choice that names no row. Checked here with the other rules so that one 400 names
 * them all; the write checks again inside its transaction (the row may go meanwhile).
 */
function checkLinkExists(
  db: DbOrTx,
  details: ErrorDetails,
  choice: LinkChoice,
  field: 'authorId' | 'seriesId',
  find: (db: DbOrTx, id: string) => unknown,
): void {
  if (choice !== undefined && choice !== null && 'id' in choice && find(db, choice.id) === undefined) {
    details[field] = unknownLinkMessage(field);
  }
}

function parseTagNames(details: ErrorDetails, raw: readonly string[] | null | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return [];
  return collect(details, () => [...new Set(raw.map((name) => cleanTagName(name, 'tagNames')))]);
}

/** docs/decisions.md, "Images": `coverPath` names `covers/<file>`; the text guard runs here. */
function parseCoverPath(details: ErrorDetails, raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  return collect(details, () => parseImagePathOf('covers', raw, 'coverPath').relPath);
}

/** Every rule of a story body, its offences collected into `details`; the parts the write needs. */
function checkStoryBody(db: DbOrTx, body: StoryUpdateBody, details: ErrorDetails) {
  let title: string | undefined;
  if (body.title !== undefined) {
    title = body.title.trim();
    if (title === '') details.title = BLANK;
  }
  let author = parseLink(details, { id: 'authorId', name: 'authorName' }, body.authorId, body.authorName);
  let coauthorNames: string[] | undefined;
  if (body.authorNames !== undefined) {
    if (body.authorId !== undefined || body.authorName !== undefined) {
      details.authorNames = 'give either authorNames or authorId/authorName, not both';
    } else {
      // A name given twice (in any case) is kept once where the authors are found (src/stories/service.ts `setCoauthors`).
      const names = body.authorNames.map(cleanName);
      if (names.some((name) => name === '')) details.authorNames = BLANK;
      else {
        author = { name: names[0] as string };
        coauthorNames = names.slice(1);
      }
    }
  }
  if (body.chapters !== undefined && body.contentHtml !== undefined) {
    details.chapters = 'give either contentHtml or chapters, not both';
  }
  const series = parseLink(details, { id: 'seriesId', name: 'seriesName' }, body.seriesId, body.seriesName);
  checkLinkExists(db, details, author, 'authorId', findAuthorById);
  checkLinkExists(db, details, series, 'seriesId', findSeriesById);
  const tagNames = parseTagNames(details, body.tagNames);
  const coverPath = parseCoverPath(details, body.coverPath);
  return { title, author, coauthorNames, series, tagNames, coverPath };
}

/**
 * The rule offences of a story body's schema-valid fields, for the route's `bodyRules`
 * (src/validation.ts): reported together with the fields the schema refused.
 */
export function storyBodyIssues(db: DbOrTx, body: StoryUpdateBody): ErrorDetails {
  const details: ErrorDetails = {};
  checkStoryBody(db, body, details);
  return details;
}

/** A story body's checked fields ({@link checkStoryBody}), once no rule is broken. */
type CheckedStoryBody = ReturnType<typeof checkStoryBody>;

/** {@link checkStoryBody}, throwing a 400 naming every bad field. */
function checkedStoryBody(db: DbOrTx, body: StoryUpdateBody): CheckedStoryBody {
  const details: ErrorDetails = {};
  const checked = checkStoryBody(db, body, details);
  throwIfInvalid(details);
  return checked;
}

/**
 * Validates and normalizes a story body. On create the title is required (the schema already
 * demands it); on update every field is optional. Throws a 400 naming every bad field.
 */
export function parseStoryBody(db: DbOrTx, body: StoryCreateBody | StoryUpdateBody): StoryInput {
  return storyInputOf(body, checkedStoryBody(db, body));
}

/**
 * {@link parseStoryBody} for a write about to happen: the body is checked first, so a refused
 * one costs no sanitizing, then its text (its chapters, or its `contentHtml`) is derived, beside
 * the event loop when it is long (src/html/text-thread.ts).
 */
export async function readStoryBody(db: DbOrTx, body: StoryCreateBody | StoryUpdateBody): Promise<StoryInput> {
  const checked = checkedStoryBody(db, body);
  const htmls = body.chapters !== undefined ? body.chapters.map((chapter) => chapter.contentHtml) : body.contentHtml !== undefined ? [body.contentHtml] : [];
  return storyInputOf(body, checked, htmls.length === 0 ? undefined : await deriveStoryTexts(htmls));
}

/** The input of a checked body; `derived`: its texts already derived, one per chapter or the one body. */
function storyInputOf(body: StoryCreateBody | StoryUpdateBody, checked: CheckedStoryBody, derived?: readonly StoryText[]): StoryInput {
  const { title, author, coauthorNames, series, tagNames, coverPath } = checked;
  const input: StoryInput = { author, series };
  if (title !== undefined) input.title = title;
  if (body.summary !== undefined) input.summary = body.summary;
  if (body.description !== undefined) input.description = body.description;
  if (body.sourceUrl !== undefined) input.sourceUrl = body.sourceUrl;
  if (body.volume !== undefined) input.volume = body.volume;
  if (body.rating !== undefined) input.rating = body.rating;
  if (tagNames !== undefined) input.tagNames = tagNames;
  if (coverPath !== undefined) input.coverPath = coverPath;
  if (coauthorNames !== undefined) input.coauthorNames = coauthorNames;
  if (body.status !== undefined) input.status = body.status;
  if (body.publishedAt !== undefined) input.publishedAt = normalizedTime(body.publishedAt);
  if (body.sourceUpdatedAt !== undefined) input.sourceUpdatedAt = normalizedTime(body.sourceUpdatedAt);
  if (body.language !== undefined) input.language = body.language;
  // Sanitizing is the costly part of a write: done here, before the write transaction opens.
  if (body.chapters !== undefined) setChapters(input, body.chapters.map((chapter, index) => deriveChapter(chapter, derived?.[index])));
  else if (body.contentHtml !== undefined) {
    // The story's text exactly as it always was derived (an HTML that sanitizes to nothing stays
    // "", not null), and that text as its one chapter.
    input.text = derived?.[0] ?? deriveStoryText(body.contentHtml);
    input.chapters = [textAsChapter(input.text)];
  }
  return input;
}

/** The chapters an input replaces the story's with, and the whole work they make. */
export function setChapters(input: StoryInput, chapters: ChapterText[]): void {
  input.chapters = chapters;
  input.text = assembleWork(chapters);
}

/** A schema-valid date-time as the library stores times: ISO 8601 UTC with milliseconds. */
function normalizedTime(value: string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
