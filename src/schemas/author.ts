/**
 * Author contracts (docs/api.md, "Authors — /api/authors" and "Fields › Author"), the avatar
 * endpoints and both forms of PUT included. `search-typesense` adds its own shapes elsewhere; the
 * limits here are shared with it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, HttpUrl, limitQuery, Nullable, Paged, Rating, SearchText, sortedPageQuery, URL_MAX, Uuid } from './common.js';
import { IMAGE_PATH_MAX } from './files.js';

/** Author names: 255, as for series names and story titles (docs/decisions.md, "Shapes and values"). */
export const AUTHOR_NAME_MAX = 255;
/** Author notes: generous (a long biography fits), but bounded (docs/decisions.md, "Shapes and values"). */
export const AUTHOR_NOTES_MAX = 10_000;
export const AUTHOR_URL_MAX = URL_MAX;
/** URLs one author may carry: a profile's links, not a crawl list. */
export const AUTHOR_URLS_MAX = 100;

export const AuthorDto = Type.Object({
  id: Uuid,
  name: Type.String(),
  notes: Nullable(Type.String()),
  avatarImagePath: Nullable(Type.String()),
  authorRating: Nullable(Rating),
  /** Mean rating of the author's rated stories; null when none is rated. */
  averageStoryRating: Nullable(Type.Number()),
  /** In the order they were added. */
  urls: Type.Array(Type.String()),
  storyCount: Type.Integer(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type AuthorDto = Static<typeof AuthorDto>;

export const AuthorPage = Paged(AuthorDto);

export const AUTHOR_SORT_KEYS = ['name', 'createdAt', 'updatedAt', 'authorRating', 'averageStoryRating', 'storyCount'] as const;
export type AuthorSortKey = (typeof AUTHOR_SORT_KEYS)[number];

export const AuthorListQuery = sortedPageQuery(AUTHOR_SORT_KEYS);
export type AuthorListQuery = Static<typeof AuthorListQuery>;

/** `query` is a case-insensitive substring of the name; by name unless a sort is asked for. */
export const AuthorSearchQuery = sortedPageQuery(AUTHOR_SORT_KEYS, { query: SearchText });
export type AuthorSearchQuery = Static<typeof AuthorSearchQuery>;

export const AuthorTopRatedQuery = limitQuery(10);

const AuthorName = Type.String({ maxLength: AUTHOR_NAME_MAX });
const AuthorNotes = Type.String({ maxLength: AUTHOR_NOTES_MAX });
/** A URL to store: http(s) only; surrounding white space is trimmed by the service. */
export const AuthorUrl = HttpUrl;
const AuthorUrls = Type.Array(AuthorUrl, { maxItems: AUTHOR_URLS_MAX });

/** `null` for `notes` or `urls` is taken as absent, so a client may send back a DTO's nulls. */
export const AuthorCreateBody = Type.Object({
  name: AuthorName,
  notes: Type.Optional(Nullable(AuthorNotes)),
  urls: Type.Optional(Nullable(AuthorUrls)),
});
export type AuthorCreateBody = Static<typeof AuthorCreateBody>;

/**
 * The JSON form of PUT: partial; `notes: null` and `rating: null` clear; `urls` replaces every
 * URL (`null` or `[]` removes them all). The rating is `rating` here, `authorRating` in the DTO.
 * `avatarImagePath` (docs/decisions.md, "Images") attaches an image uploaded earlier through
 * `/api/files/upload/avatar` (`avatars/<file>`, which must exist; else 400); `null` removes it.
 */
export const AuthorUpdateBody = Type.Object({
  name: Type.Optional(AuthorName),
  notes: Type.Optional(Nullable(AuthorNotes)),
  urls: Type.Optional(Nullable(AuthorUrls)),
  rating: Type.Optional(Nullable(Rating)),
  avatarImagePath: Type.Optional(Nullable(Type.String({ maxLength: IMAGE_PATH_MAX }))),
});
export type AuthorUpdateBody = Static<typeof AuthorUpdateBody>;

/** 200 of `POST /api/authors/{id}/avatar` (docs/api.md, "Authors — /api/authors"): `avatarUrl` is `/api/files/images/<avatarPath>`. */
export const AvatarResponse = Type.Object({
  message: Type.String(),
  avatarPath: Type.String({ description: 'avatars/<file>' }),
  avatarUrl: Type.String({ description: '/api/files/images/avatars/<file>' }),
});
export type AvatarResponse = Static<typeof AvatarResponse>;

export const AuthorUrlBody = Type.Object({ url: AuthorUrl });
export type AuthorUrlBody = Static<typeof AuthorUrlBody>;

/** Removing takes any text, so a URL stored before the http(s) rule can still be removed. */
export const AuthorUrlRemoveBody = Type.Object({ url: Type.String({ maxLength: AUTHOR_URL_MAX }) });
export type AuthorUrlRemoveBody = Static<typeof AuthorUrlRemoveBody>;
