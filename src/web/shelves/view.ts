/**
 * The shelf pages' view models (docs/decisions.md, "Shelves"): the list with its create form, a
 * shelf's page of cards, and the edit and delete forms.
 */
import type { ErrorDetails } from '../../errors.js';
import type { ShelfDto } from '../../schemas/shelf.js';
import type { StoryCard } from '../../stories/present.js';
import { cardView, pagerView, urlWith, type CardView, type PagerView } from '../library/view.js';
import type { PageModel } from '../render.js';
import { SHELF_FORM_CHOICES, type ShelfFormValues } from './form.js';

export interface ShelfFormView {
  form: ShelfFormValues;
  errors: ErrorDetails;
  choices: typeof SHELF_FORM_CHOICES;
  idPrefix: string;
  /** The first error, for the summary at the top. */
  errorSummary: { id: string; message: string } | undefined;
}

function formView(form: ShelfFormValues, errors: ErrorDetails, idPrefix: string): ShelfFormView {
  const [field, message] = Object.entries(errors)[0] ?? [];
  const target = field === undefined ? undefined : ['name', 'description', 'query', 'authors', 'tags', 'minRating'].includes(field) ? field : 'name';
  return {
    form,
    errors,
    choices: SHELF_FORM_CHOICES,
    idPrefix,
    errorSummary: field === undefined ? undefined : { id: `${idPrefix}-${target === 'minRating' ? 'min' : target}`, message: `${field}: ${message}` },
  };
}

/** What a shelf is, in a line. */
function shelfSummary(shelf: ShelfDto): string {
  if (shelf.kind === 'smart') return 'Smart shelf: a saved search';
  return shelf.storyCount === 1 ? '1 story' : `${shelf.storyCount ?? 0} stories`;
}

export interface ShelvesView extends PageModel {
  rows: Array<{ href: string; name: string; summary: string; description: string }>;
  create: ShelfFormView;
}

export function shelvesView(shelves: ShelfDto[], form: ShelfFormValues, errors: ErrorDetails = {}): ShelvesView {
  return {
    title: 'Shelves',
    rows: shelves.map((shelf) => ({ href: `/shelves/${shelf.id}`, name: shelf.name, summary: shelfSummary(shelf), description: shelf.description ?? '' })),
    create: formView(form, errors, 'new-shelf'),
  };
}

export interface ShelfView extends PageModel {
  description: string;
  summary: string;
  smart: boolean;
  cards: CardView[];
  pager: PagerView;
  editHref: string;
  deleteHref: string;
  epubHref: string;
  /** A manual shelf's "take off" form: where it posts, the stories of this page. */
  takeOff: { action: string; back: string; stories: Array<{ id: string; title: string }> } | undefined;
}

export function shelfView(shelf: ShelfDto, cards: StoryCard[], total: number, page: number, size: number): ShelfView {
  return {
    title: shelf.name,
    description: shelf.description ?? '',
    summary: shelfSummary(shelf),
    smart: shelf.kind === 'smart',
    cards: cards.map((card) => cardView(card)),
    pager: pagerView(page, size, total, (n) => urlWith(`/shelves/${shelf.id}`, { page: n || undefined })),
    editHref: `/shelves/${shelf.id}/edit`,
    deleteHref: `/shelves/${shelf.id}/delete`,
    epubHref: `/api/shelves/${shelf.id}/epub`,
    takeOff:
      shelf.kind === 'manual' && cards.length > 0
        ? { action: `/shelves/${shelf.id}/remove`, back: urlWith(`/shelves/${shelf.id}`, { page: page || undefined }), stories: cards.map((card) => ({ id: card.id, title: card.title })) }
        : undefined,
  };
}

export interface ShelfEditView extends PageModel {
  action: string;
  backHref: string;
  edit: ShelfFormView;
}

export function shelfEditView(shelf: ShelfDto, form: ShelfFormValues, errors: ErrorDetails = {}): ShelfEditView {
  return { title: `Edit ${shelf.name}`, action: `/shelves/${shelf.id}/edit`, backHref: `/shelves/${shelf.id}`, edit: formView(form, errors, 'edit-shelf') };
}

export interface ShelfDeleteView extends PageModel {
  action: string;
  backHref: string;
  name: string;
}

export function shelfDeleteView(shelf: ShelfDto): ShelfDeleteView {
  return { title: `Delete the shelf ${shelf.name}?`, action: `/shelves/${shelf.id}/delete`, backHref: `/shelves/${shelf.id}`, name: shelf.name };
}
