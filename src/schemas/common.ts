/**
 * The contracts every domain shares: ids, timestamps, the page query, the paged envelope
 * (docs/api.md, "Lists and paging"), and the error and message bodies (docs/api.md, "Errors").
 * Domains build on these; nothing here knows about a particular resource.
 */
import { Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import { HTTP_URL_FORMAT } from './values.js';

/** A nullable value: DTOs always carry every field, `null` when unset (docs/decisions.md, "Shapes and values"). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'A lowercase UUID v4' });
export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
export const Rating = Type.Integer({ minimum: 1, maximum: 5 });

/** Per URL; 2048 is the practical URL length browsers and servers agree on. */
export const URL_MAX = 2048;

/**
 * A URL a client may render as a link: http or https only, so `javascript:`, `data:` and
 * `vbscript:` are a 400 naming the field (docs/decisions.md, "Validation"). Stored values are
 * read back as plain strings (DTOs use `Type.String()`), rows older than the rule included.
 */
export const HttpUrl = Type.String({ maxLength: URL_MAX, format: HTTP_URL_FORMAT });

export const IdParams = Type.Object({ id: Uuid });
export type IdParams = Static<typeof IdParams>;

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.String())),
    requestId: Type.Optional(Type.String()),
  },
  { description: 'Every error: {error} or, for validation failures, {error, details}' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const MessageBody = Type.Object({ message: Type.String() });
export type MessageBody = Static<typeof MessageBody>;

const Page = Type.Integer({ minimum: 0, default: 0, description: '0-based page number' });
const Size = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100' });
const SortDir = Type.String({ pattern: '^(?:[aA][sS][cC]|[dD][eE][sS][cC])$', description: 'asc or desc' });

/** `page` and `size` alone (lists whose order is fixed by the endpoint). */
export const PageQuery = Type.Object({ page: Page, size: Size });
export type PageQuery = Static<typeof PageQuery>;

/**
 * `page`, `size`, `sortBy` and `sortDir` for a list whose sort keys are `sortKeys`; the default
 * order is the domain's (docs/decisions.md, "Lists and pagination").
 */
export function sortedPageQuery<K extends string, P extends TProperties = {}>(sortKeys: readonly K[], extra: P = {} as P) {
  return Type.Object({
    page: Page,
    size: Size,
    sortBy: Type.Optional(Type.Unsafe<K>(Type.String({ enum: [...sortKeys], description: `One of ${sortKeys.join(', ')}` }))),
    sortDir: Type.Optional(SortDir),
    ...extra,
  });
}

/** `limit` with the endpoint's own default (docs/api.md, "Lists and paging"). */
export function limitQuery<P extends TProperties = {}>(defaultLimit: number, extra: P = {} as P) {
  return Type.Object({
    limit: Type.Integer({ minimum: 1, maximum: 100, default: defaultLimit }),
    ...extra,
  });
}

/** Required, non-empty search text for the database name searches. */
export const SearchText = Type.String({ minLength: 1, maxLength: 500 });

const SortState = Type.Object({ sorted: Type.Boolean(), unsorted: Type.Boolean() });

/** The paged envelope (docs/api.md, "Lists and paging"), for any item schema. */
export function Paged<T extends TSchema>(item: T) {
  return Type.Object({
    content: Type.Array(item),
    pageable: Type.Object({
      sort: SortState,
      pageNumber: Type.Integer(),
      pageSize: Type.Integer(),
      offset: Type.Integer(),
      paged: Type.Boolean(),
      unpaged: Type.Boolean(),
    }),
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
    last: Type.Boolean(),
    first: Type.Boolean(),
    numberOfElements: Type.Integer(),
    size: Type.Integer(),
    number: Type.Integer(),
    sort: SortState,
    empty: Type.Boolean(),
  });
}

/** The error responses a route can send, for its `response` schema. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  const responses: Record<number, typeof ErrorBody> = {};
  for (const status of statuses) responses[status] = ErrorBody;
  return responses;
}

