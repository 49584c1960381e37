import type { PageOf } from '../schemas/common.js';

export type SortDirection = 'asc' | 'desc';

export interface PageRequest {
  page: number;
  size: number;
}

/** The row window of a page: `offset = page * size` (decisions.md). */
export function pageWindow({ page, size }: PageRequest): { limit: number; offset: number } {
  return { limit: size, offset: page * size };
}

/** `asc`/`desc` in any letter case, or the list's default when absent. */
export function sortDirection(raw: string | undefined, fallback: SortDirection): SortDirection {
  if (raw === undefined) return fallback;
  return raw.toLowerCase() === 'asc' ? 'asc' : 'desc';
}

/**
 * Wraps one page of items in the envelope of spec 2.6 with the arithmetic of decisions.md.
 * Every list here is ordered, so `sorted` is always true.
 */
export function toPage<T>(content: T[], totalElements: number, { page, size }: PageRequest): PageOf<T> {
  const totalPages = Math.ceil(totalElements / size);
  const sort = { sorted: true, unsorted: false };
  return {
    content,
    pageable: { sort, pageNumber: page, pageSize: size, offset: page * size, paged: true, unpaged: false },
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
