/**
 * The story form's fields as the API's create/update body (docs/decisions.md, "Edit forms"),
 * checked by the routes with `checkBody` (src/validation.ts) as `POST /api/stories` checks its
 * own, so one 400 names every offending field as the API does.
 */

/** What the reader typed, as text, exactly as it is shown again in the form. */
export interface StoryFormValues {
  title: string;
  authorName: string;
  seriesName: string;
  volume: string;
  tags: string;
  summary: string;
  description: string;
  sourceUrl: string;
  body: string;
  /** `html` or `text`: how `body` is read. */
  bodyFormat: 'html' | 'text';
  removeCover: boolean;
}

export const EMPTY_STORY_FORM: StoryFormValues = {
  title: '',
  authorName: '',
  seriesName: '',
  volume: '',
  tags: '',
  summary: '',
  description: '',
  sourceUrl: '',
  body: '',
  bodyFormat: 'html',
  removeCover: false,
};

/** The last value of each text field a multipart or urlencoded form sent. */
export function formValues(fields: Readonly<Record<string, string[]>>): StoryFormValues {
  const one = (name: string): string => fields[name]?.at(-1) ?? '';
  // Tags may come as one comma-separated field or as repeated fields.
  const tags = (fields.tags ?? []).join(', ');
  return {
    title: one('title'),
    authorName: one('authorName'),
    seriesName: one('seriesName'),
    volume: one('volume'),
    tags,
    summary: one('summary'),
    description: one('description'),
    sourceUrl: one('sourceUrl'),
    body: one('body'),
    bodyFormat: one('bodyFormat') === 'text' ? 'text' : 'html',
    removeCover: one('removeCover') !== '',
  };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Plain text as HTML: a paragraph per blank-line-separated block, line breaks kept, everything escaped. */
export function plainTextToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => `<p>${block.replace(/[&<>"']/g, (c) => ESCAPES[c] as string).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/** The body's HTML as the sanitizer is given it (`null` when empty); the chapter form's body is read the same way. */
export function bodyHtml(values: Pick<StoryFormValues, 'body' | 'bodyFormat'>): string | null {
  if (values.body.trim() === '') return null;
  return values.bodyFormat === 'text' ? plainTextToHtml(values.body) : values.body;
}

const blankToNull = (text: string): string | null => (text.trim() === '' ? null : text);

/**
 * The API body the form describes. An empty field is `null` (unset on create, cleared on edit);
 * author and series go by name, found or created by the service; the volume is a number when it
 * is digits, else left as text so the schema names it.
 */
export function storyBody(values: StoryFormValues, cover: string | null | undefined): Record<string, unknown> {
  const volume = values.volume.trim();
  const body: Record<string, unknown> = {
    title: values.title,
    authorName: blankToNull(values.authorName),
    seriesName: blankToNull(values.seriesName),
    volume: volume === '' ? null : /^\d{1,16}$/.test(volume) ? Number(volume) : volume,
    tagNames: values.tags
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    summary: blankToNull(values.summary),
    description: blankToNull(values.description),
    sourceUrl: values.sourceUrl.trim() === '' ? null : values.sourceUrl.trim(),
    contentHtml: bodyHtml(values),
  };
  if (cover !== undefined) body.coverPath = cover;
  return body;
}
