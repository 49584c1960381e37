/**
 * The chapter form's fields as the API's chapter body (docs/decisions.md, "Edit forms"): a
 * title and a body read as the story form reads its own (HTML, or plain text made paragraphs),
 * checked by the routes with `checkBody` against the schema `POST`/`PUT .../chapters` use.
 */
import type { FormFields } from '../form.js';
import { bodyHtml, type StoryFormValues } from './story-form.js';

/** What the reader typed, exactly as it is shown again in the form. */
export type ChapterFormValues = Pick<StoryFormValues, 'title' | 'body' | 'bodyFormat'>;

export const EMPTY_CHAPTER_FORM: ChapterFormValues = { title: '', body: '', bodyFormat: 'html' };

/** The chapter form's fields from a urlencoded body (the first value of each). */
export function chapterFormValues(form: FormFields): ChapterFormValues {
  return {
    title: form.first('title') ?? '',
    body: form.first('body') ?? '',
    bodyFormat: form.first('bodyFormat') === 'text' ? 'text' : 'html',
  };
}

/**
 * The API body the form describes: the title as typed (an empty one is an untitled chapter) and
 * the body's HTML, `null` when the field is blank, which the routes refuse: a chapter the form
 * saves has text, and one without is deleted instead.
 */
export function chapterBody(values: ChapterFormValues): { title: string; contentHtml: string | null } {
  return { title: values.title, contentHtml: bodyHtml(values) };
}
