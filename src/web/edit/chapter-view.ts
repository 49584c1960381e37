/**
 * View models of the chapter editor (docs/decisions.md, "Edit forms"): the Chapters section of a
 * story's edit page, the chapter form and the chapter delete confirmation. URLs are built here.
 */
import type { ErrorDetails } from '../../errors.js';
import type { ChapterDto, ChapterMetaDto } from '../../schemas/chapter.js';
import type { StoryDto } from '../../schemas/story.js';
import { storyHref } from '../layout/links.js';
import type { PageModel } from '../render.js';
import { chapterName, numberText } from '../stories/view.js';
import { EMPTY_CHAPTER_FORM, type ChapterFormValues } from './chapter-form.js';
import { fieldErrors, type FieldError } from './field-errors.js';

/** What the edit page says after a chapter form redirected to it (`?chapters=…`). */
export const CHAPTER_NOTICES = {
  added: 'Chapter added.',
  saved: 'Chapter saved.',
  deleted: 'Chapter deleted; the chapters after it moved up.',
} as const;
export type ChapterNotice = keyof typeof CHAPTER_NOTICES;

/** The notice a `?chapters=` value names; anything else (an edited address) shows none. */
export function chapterNotice(query: string | undefined): ChapterNotice | undefined {
  return query !== undefined && Object.hasOwn(CHAPTER_NOTICES, query) ? (query as ChapterNotice) : undefined;
}

/** The edit page of a story, where every chapter page returns to (its Chapters section). */
export function chaptersHref(storyId: string, notice?: ChapterNotice): string {
  return `${storyHref(storyId)}/edit${notice === undefined ? '' : `?chapters=${notice}`}#chapters`;
}

function chapterHref(storyId: string, index: number): string {
  return `${storyHref(storyId)}/chapters/${index}`;
}

export interface ChapterRowView {
  index: number;
  /** The title, or "Chapter 3" when it has none. */
  name: string;
  /** "1,234". */
  words: string;
  editHref: string;
  /** Absent for a story's only chapter, which cannot be deleted. */
  deleteHref: string | undefined;
}

/** The Chapters section of the story edit page. */
export interface ChaptersSectionView {
  rows: ChapterRowView[];
  addHref: string;
  /** The message after a chapter was added, saved or deleted ('' otherwise). */
  notice: string;
}

export function chaptersSectionView(storyId: string, chapters: readonly ChapterMetaDto[], notice: ChapterNotice | undefined): ChaptersSectionView {
  const many = chapters.length > 1;
  return {
    rows: chapters.map((chapter) => ({
      index: chapter.index,
      name: chapterName(chapter),
      words: numberText(chapter.wordCount),
      editHref: `${chapterHref(storyId, chapter.index)}/edit`,
      deleteHref: many ? `${chapterHref(storyId, chapter.index)}/delete` : undefined,
    })),
    addHref: `${storyHref(storyId)}/chapters/new`,
    notice: notice === undefined ? '' : CHAPTER_NOTICES[notice],
  };
}

/** The chapter form's fields in page order: `[field, control id, label]`. */
const CHAPTER_FIELDS = [
  ['title', 'chapter-title', 'Title'],
  ['body', 'chapter-body', 'Text'],
] as const;

export interface ChapterFormView extends PageModel {
  /** `/stories/{id}/chapters/new` or `/stories/{id}/chapters/{index}/edit`. */
  action: string;
  /** The story's edit page, where Cancel goes. */
  cancel: string;
  storyTitle: string;
  values: ChapterFormValues;
  errors: Record<string, string>;
  summary: FieldError[];
  /** A refusal about no one field (the story's chapters are at their bound), shown above the form. */
  notice: string | undefined;
  /** The sanitizer's output for the body, after Preview; `undefined` when not previewing. */
  previewHtml: string | undefined;
  submitLabel: string;
}

export interface ChapterFormState {
  values?: ChapterFormValues;
  details?: ErrorDetails;
  notice?: string;
  previewHtml?: string;
}

function chapterFormView(story: Pick<StoryDto, 'id' | 'title'>, heading: string, action: string, submitLabel: string, values: ChapterFormValues, state: ChapterFormState): ChapterFormView {
  const { byField, summary } = fieldErrors(state.details ?? {}, CHAPTER_FIELDS, { contentHtml: 'body' });
  return {
    title: heading,
    action,
    cancel: chaptersHref(story.id),
    storyTitle: story.title,
    values: state.values ?? values,
    errors: byField,
    summary,
    notice: state.notice,
    previewHtml: state.previewHtml,
    submitLabel,
  };
}

/** The form that appends a chapter after the story's last one. */
export function newChapterView(story: Pick<StoryDto, 'id' | 'title'>, state: ChapterFormState = {}): ChapterFormView {
  return chapterFormView(story, `New chapter of ${story.title}`, `${storyHref(story.id)}/chapters/new`, 'Add chapter', EMPTY_CHAPTER_FORM, state);
}

/** The form of a stored chapter: its title and its stored (sanitized) HTML as the body. */
export function editChapterView(story: Pick<StoryDto, 'id' | 'title'>, chapter: ChapterDto, state: ChapterFormState = {}): ChapterFormView {
  const values: ChapterFormValues = { title: chapter.title, body: chapter.contentHtml, bodyFormat: 'html' };
  return chapterFormView(story, `Edit chapter ${chapter.index} of ${story.title}`, `${chapterHref(story.id, chapter.index)}/edit`, 'Save chapter', values, state);
}

export interface ChapterDeleteView extends PageModel {
  storyTitle: string;
  /** The chapter's title, or "Chapter 3". */
  chapterName: string;
  /** Absent when the chapter is the story's only one: there is nothing to confirm. */
  action: string | undefined;
  cancelHref: string;
  /** Why the chapter cannot be deleted (the story's only one, or the service's 409), or ''. */
  refusal: string;
}

const ONLY_CHAPTER = "This is the story's only chapter, and a story keeps at least one: edit the chapter, or delete the whole story.";

/** The confirmation; `refusal` is the service's refusal of the delete just posted. */
export function chapterDeleteView(story: Pick<StoryDto, 'id' | 'title' | 'chapterCount'>, chapter: ChapterMetaDto, refusal?: string): ChapterDeleteView {
  const reason = refusal ?? (story.chapterCount > 1 ? '' : ONLY_CHAPTER);
  return {
    title: `Delete chapter ${chapter.index}`,
    storyTitle: story.title,
    chapterName: chapterName(chapter),
    action: reason === '' ? `${chapterHref(story.id, chapter.index)}/delete` : undefined,
    cancelHref: chaptersHref(story.id),
    refusal: reason,
  };
}
