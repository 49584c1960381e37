/**
 * The OPDS catalog's contracts (docs/api.md, "OPDS catalog"): the page and sort of its feeds, the search
 * text, the path token, and the XML bodies. The routes are left out of the OpenAPI document,
 * which describes the JSON API (docs/decisions.md, "OPDS catalog").
 */
import { Type, type Static } from '@sinclair/typebox';
import { Uuid } from './common.js';

export const OPDS_SORTS = ['added', 'updated', 'title', 'rating', 'words'] as const;
export type OpdsSort = (typeof OPDS_SORTS)[number];

const Page = Type.Integer({ minimum: 0, default: 0, description: '0-based page number, 50 entries a page' });

export const OpdsPageQuery = Type.Object({ page: Page });
export type OpdsPageQuery = Static<typeof OpdsPageQuery>;

export const OpdsStoriesQuery = Type.Object({
  page: Page,
  sort: Type.Unsafe<OpdsSort>(Type.String({ enum: [...OPDS_SORTS], default: 'title', description: `One of ${OPDS_SORTS.join(', ')}` })),
});
export type OpdsStoriesQuery = Static<typeof OpdsStoriesQuery>;

/** The search text as the API's story search takes it (blank matches every story). */
export const OpdsSearchQuery = Type.Object({
  q: Type.String({ maxLength: 500, description: 'Search text' }),
  page: Page,
});
export type OpdsSearchQuery = Static<typeof OpdsSearchQuery>;

export const OpdsIdParams = Type.Object({ id: Uuid });
export type OpdsIdParams = Static<typeof OpdsIdParams>;

/** An Atom feed or an OpenSearch description. */
export const XmlDocument = Type.String({ description: 'An OPDS 1.2 (Atom) feed or an OpenSearch description' });
