import type { ErrorDetails } from '../../errors.js';
import { imageUrl } from '../../images/image-path.js';
import type { AuthorDto } from '../../schemas/author.js';
import type { StoryDto } from '../../schemas/story.js';
import type { PageModel } from '../render.js';
import { fieldErrors, type FieldError } from './field-errors.js';
import type { ChapterMetaDto } from '../../schemas/chapter.js';
import { chaptersSectionView, type ChapterNotice, type ChaptersSectionView } from './chapter-view.js';
import { EMPTY_STORY_FORM, type StoryFormValues } from './story-form.js';

/** The form fields of the story form, in page order: `[field, control id, label]`. */
const STORY_FIELDS = [
  ['title', 'story-title', 'Title'],
  ['authorName', 'story-author', 'Author'],
  ['seriesName', 'story-series', 'Series'],
  ['volume', 'story-volume', 'Volume'],
  ['tags', 'story-tags', 'Tags'],
  ['summary', 'story-summary', 'Summary'],
  ['description', 'story-description', 'Description'],
  ['sourceUrl', 'story-source', 'Source URL'],
  ['body', 'story-body', 'Body'],
  ['cover', 'story-cover', 'Cover'],
] as const;

/** The API's field names (`details` keys) as the form's. */
const API_TO_FORM: Record<string, string> = {
  tagNames: 'tags',
  contentHtml: 'body',
  coverPath: 'cover',
  authorId: 'authorName',
  seriesId: 'seriesName',
};

export interface StoryFormView extends PageModel {
  /** `/stories/new` or `/stories/{id}/edit`. */
  action: string;
  /** Where Cancel goes. */
  cancel: string;
  values: StoryFormValues;
  errors: Record<string, string>;
  summary: FieldError[];
  /** A general message above the form (a conflict, a cover that was not kept after a preview). */
  notice: string | undefined;
  /** The sanitizer's output for the body, after Preview; `undefined` when not previewing. */
  previewHtml: string | undefined;
  /** The current cover's URL (edit only). */
  coverUrl: string | undefined;
  submitLabel: string;
  /** The "import from a web page" form above the new-story form; absent when editing. */
  importForm: ImportFormView | undefined;
  /**
   * Set when the story has several chapters: the form then has no body field, and saving never
   * sends `contentHtml`, which would make the work one chapter (docs/decisions.md, "Edit forms").
   */
  chapterCount: number | undefined;
  /** The Chapters section below the form (edit only): each chapter with its edit and delete pages. */
  chapters: ChaptersSectionView | undefined;
}

/** The URL import box of the new-story page (docs/api.md, "Importing from a URL"). */
export interface ImportFormView {
  url: string;
  update: boolean;
  /** Why the last import was refused, shown beside the box. */
  error: string | undefined;
  /** On a duplicate: the story imported earlier from the URL, to link to. */
  existingId: string | undefined;
}

export interface StoryFormState {
  values?: StoryFormValues;
  details?: ErrorDetails;
  notice?: string;
  previewHtml?: string;
}

export function newStoryView(state: StoryFormState = {}, importForm: Partial<ImportFormView> = {}): StoryFormView {
  const { byField, summary } = fieldErrors(state.details ?? {}, STORY_FIELDS, API_TO_FORM);
  return {
    title: 'New story',
    action: '/stories/new',
    cancel: '/',
    values: state.values ?? EMPTY_STORY_FORM,
    errors: byField,
    summary,
    notice: state.notice,
    previewHtml: state.previewHtml,
    coverUrl: undefined,
    submitLabel: 'Create story',
    importForm: { url: importForm.url ?? '', update: importForm.update ?? false, error: importForm.error, existingId: importForm.existingId },
    chapterCount: undefined,
    chapters: undefined,
  };
}

/** The form's values for a stored story: every field prefilled, tags comma-separated, the stored (sanitized) HTML as the body. */
export function storyValues(story: StoryDto): StoryFormValues {
  return {
    ...EMPTY_STORY_FORM,
    title: story.title,
    authorName: story.authorName ?? '',
    seriesName: story.seriesName ?? '',
    volume: story.volume === null ? '' : String(story.volume),
    tags: story.tags.map((tag) => tag.name).join(', '),
    summary: story.summary ?? '',
    description: story.description ?? '',
    sourceUrl: story.sourceUrl ?? '',
    body: story.contentHtml ?? '',
  };
}

/** The edit page of a stored story: its form, and below it the Chapters section listing `chapters`. */
export function editStoryView(story: StoryDto, chapters: readonly ChapterMetaDto[], state: StoryFormState = {}, notice?: ChapterNotice): StoryFormView {
  const { byField, summary } = fieldErrors(state.details ?? {}, STORY_FIELDS, API_TO_FORM);
  const path = `/stories/${encodeURIComponent(story.id)}`;
  return {
    title: `Edit ${story.title}`,
    action: `${path}/edit`,
    cancel: path,
    values: state.values ?? storyValues(story),
    errors: byField,
    summary,
    notice: state.notice,
    previewHtml: state.previewHtml,
    coverUrl: story.coverPath === null ? undefined : imageUrl(story.coverPath),
    submitLabel: 'Save changes',
    importForm: undefined,
    chapterCount: story.chapterCount > 1 ? story.chapterCount : undefined,
    chapters: chaptersSectionView(story.id, chapters, notice),
  };
}

/** Datalist options: the names only, at most 50. */
export interface SuggestionsView {
  options: string[];
}

export interface AuthorFormValues {
  name: string;
  notes: string;
  /** One URL per line. */
  urls: string;
  rating: string;
  removeAvatar: boolean;
}

export interface AuthorFormView extends PageModel {
  action: string;
  cancel: string;
  values: AuthorFormValues;
  errors: Record<string, string>;
  summary: FieldError[];
  avatarUrl: string | undefined;
}

const AUTHOR_FIELDS = [
  ['name', 'author-name', 'Name'],
  ['notes', 'author-notes', 'Notes'],
  ['urls', 'author-urls', 'Links'],
  ['authorRating', 'author-rating', 'Rating'],
  ['avatar', 'author-avatar', 'Avatar'],
] as const;

export function authorValues(author: AuthorDto): AuthorFormValues {
  return {
    name: author.name,
    notes: author.notes ?? '',
    urls: author.urls.join('\n'),
    rating: author.authorRating === null ? '' : String(author.authorRating),
    removeAvatar: false,
  };
}

export function authorFormView(author: AuthorDto, values?: AuthorFormValues, details: ErrorDetails = {}): AuthorFormView {
  const { byField, summary } = fieldErrors(details, AUTHOR_FIELDS, { rating: 'authorRating', avatarImagePath: 'avatar' });
  const path = `/authors/${encodeURIComponent(author.id)}`;
  return {
    title: `Edit ${author.name}`,
    action: `${path}/edit`,
    cancel: path,
    values: values ?? authorValues(author),
    errors: byField,
    summary,
    avatarUrl: author.avatarImagePath === null ? undefined : imageUrl(author.avatarImagePath),
  };
}
