/**
 * The shelf form (docs/decisions.md, "Shelves"): its fields as the page shows them, and the API
 * body they make, checked with the API's own schema and rules (docs/web.md, "Forms").
 */
import type { ErrorDetails } from '../../errors.js';
import { READING_STATUSES } from '../../schemas/reading-status.js';
import { STORY_SEARCH_SORT_KEYS } from '../../schemas/search.js';
import { ShelfCreateBody, type ShelfDto } from '../../schemas/shelf.js';
import { shelfBodyIssues } from '../../shelves/service.js';
import { checkBody } from '../../validation.js';
import type { FormFields } from '../form.js';

/** What the form's fields hold, as text. */
export interface ShelfFormValues {
  name: string;
  description: string;
  kind: 'manual' | 'smart';
  query: string;
  authors: string;
  tags: string;
  minRating: string;
  maxRating: string;
  readingStatus: string;
  favourite: boolean;
  sortBy: string;
  sortDir: string;
}

export const EMPTY_SHELF_FORM: ShelfFormValues = {
  name: '',
  description: '',
  kind: 'manual',
  query: '',
  authors: '',
  tags: '',
  minRating: '',
  maxRating: '',
  readingStatus: '',
  favourite: false,
  sortBy: '',
  sortDir: '',
};

/** The form filled in with a shelf as it is. */
export function shelfFormValues(shelf: ShelfDto): ShelfFormValues {
  const query = shelf.query ?? {};
  return {
    name: shelf.name,
    description: shelf.description ?? '',
    kind: shelf.kind,
    query: query.query ?? '',
    authors: (query.authors ?? []).join(', '),
    tags: (query.tags ?? []).join(', '),
    minRating: query.minRating === undefined ? '' : String(query.minRating),
    maxRating: query.maxRating === undefined ? '' : String(query.maxRating),
    readingStatus: query.readingStatus ?? '',
    favourite: query.favourite === true,
    sortBy: query.sortBy ?? '',
    sortDir: query.sortDir ?? '',
  };
}

/** The values a posted form holds. */
export function postedShelfForm(form: FormFields): ShelfFormValues {
  const text = (name: string) => form.first(name) ?? '';
  return {
    name: text('name'),
    description: text('description'),
    kind: text('kind') === 'smart' ? 'smart' : 'manual',
    query: text('query'),
    authors: text('authors'),
    tags: text('tags'),
    minRating: text('minRating'),
    maxRating: text('maxRating'),
    readingStatus: text('readingStatus'),
    favourite: text('favourite') === 'true',
    sortBy: text('sortBy'),
    sortDir: text('sortDir'),
  };
}

/** The API body of the form (`POST /api/shelves`, or the whole of a `PUT`), checked as the API checks it. */
export function shelfBodyOf(values: ShelfFormValues): { body: ShelfCreateBody; issues: undefined } | { body: undefined; issues: ErrorDetails } {
  const number = (text: string) => (text === '' ? undefined : Number(text));
  const list = (text: string) => (text.trim() === '' ? undefined : [text]);
  const query =
    values.kind === 'manual'
      ? undefined
      : {
          query: values.query === '' ? undefined : values.query,
          authors: list(values.authors),
          tags: list(values.tags),
          minRating: number(values.minRating),
          maxRating: number(values.maxRating),
          readingStatus: values.readingStatus === '' ? undefined : values.readingStatus,
          favourite: values.favourite ? true : undefined,
          sortBy: values.sortBy === '' ? undefined : values.sortBy,
          sortDir: values.sortDir === '' ? undefined : values.sortDir,
        };
  const raw = {
    name: values.name,
    description: values.description.trim() === '' ? null : values.description,
    kind: values.kind,
    ...(query === undefined ? {} : { query: Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) }),
  };
  const checked = checkBody(ShelfCreateBody, shelfBodyIssues, raw);
  if (checked.issues !== undefined) {
    // Inside `query` the schema names the part; the form names the field the reader typed in.
    const issues = Object.fromEntries(Object.entries(checked.issues).map(([field, message]) => [field.replace(/^query\./, ''), message]));
    return { body: undefined, issues };
  }
  return checked;
}

/** The choices of the form's selects. */
export const SHELF_FORM_CHOICES = {
  ratings: ['1', '2', '3', '4', '5'],
  readingStatuses: [...READING_STATUSES],
  sortKeys: [...STORY_SEARCH_SORT_KEYS],
};
