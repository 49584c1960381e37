import { invalidField } from '../errors.js';

/**
 * The paged envelope of docs/api.md, "Lists and paging", that {@link toPage} builds. Owned here, at
 * the bottom, so the services that page need not reach up into the contracts for it; the contract
 * `Paged(item)` (src/schemas/common.ts) describes the same object, and
 * test/unit/pagination-shape.test.ts holds the two equal.
 */
export interface PageOf<T> {
  content: T[];
  pageable: {
    sort: { sorted: boolean; unsorted: boolean };
    pageNumber: number;
    pageSize: number;
    offset: number;
    paged: boolean;
    unpaged: boolean;
  };
  totalElements: number;
  totalPages: number;
  last: boolean;
  first: boolean;
  numberOfElements: number;
  size: number;
  number: number;
  sort: { sorted: boolean; unsorted: boolean };
  empty: boolean;
}

export type SortDirection = 'asc' | 'desc';

export interface PageRequest {
  page: number;
  size: number;
}

/**
 * `page * size`, the offset of a page (docs/decisions.md, "Lists and pagination"). A page so far
 * out that the offset is not an exact integer any more (`page=1e308` reached SQLite as a REAL OFFSET: "datatype mismatch",
 * a 500) is out of range: 400 naming `page`, like any other bad page (never clamped).
 */
function offsetOf({ page, size }: PageRequest): number {
  const offset = page * size;
  if (!Number.isSafeInteger(offset)) throw invalidField('page', `must be at most ${Math.floor(Number.MAX_SAFE_INTEGER / size)}`);
  return offset;
}

/** The row window of a page: `offset = page * size` (docs/decisions.md, "Lists and pagination"). */
export function pageWindow(request: PageRequest): { limit: number; offset: number } {
  return { limit: request.size, offset: offsetOf(request) };
}

/** `asc`/`desc` in any letter case, or the list's default when absent. */
export function sortDirection(raw: string | undefined, fallback: SortDirection): SortDirection {
  if (raw === undefined) return fallback;
  return raw.toLowerCase() === 'asc' ? 'asc' : 'desc';
}

/**
 * Wraps one page of items in the envelope of docs/api.md, "Lists and paging", with the
 * arithmetic of docs/decisions.md, "Lists and pagination".
 * Every list here is ordered, so `sorted` is always true.
 */
export function toPage<T>(content: T[], totalElements: number, { page, size }: PageRequest): PageOf<T> {
  const totalPages = Math.ceil(totalElements / size);
  const sort = { sorted: true, unsorted: false };
  return {
    content,
    pageable: { sort, pageNumber: page, pageSize: size, offset: offsetOf({ page, size }), paged: true, unpaged: false },
    totalElements,
    totalPages,
    last: page >= totalPages - 1,
    first: page === 0,
    numberOfElements: content.length,
    size,
    number: page,
    sort,
    empty: content.length === 0,
  };
}
