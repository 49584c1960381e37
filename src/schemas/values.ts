/**
 * The contracts' plain values, without TypeBox: what code that never validates a request needs
 * from the schemas. A search thread (src/search/embedded/search-worker.ts) reads tag kinds,
 * reading statuses and the facet bound; importing them from the schema modules loaded TypeBox
 * (~90 ms of a thread's start) and, through the URL format, Ajv (~60 ms) into every thread
 * (docs/performance.md, "A search thread's start"). The schema modules re-export what they use.
 */

/** A tag's kind at its source (docs/decisions.md, "Tag kinds"). */
export const TAG_KINDS = ['fandom', 'relationship', 'character', 'warning', 'category', 'rating', 'freeform'] as const;

/** The reading statuses, in the order lists and facets show them (the column's CHECK in src/db/schema.ts). */
export const READING_STATUSES = ['want-to-read', 'reading', 'on-hold', 'finished', 'abandoned'] as const;

/** Facet values kept per facet, most stories first (Typesense's `max_facet_values`). */
export const FACET_VALUES_MAX = 20;

/** The `format` of URL fields: http and https only (docs/decisions.md, "Validation"; checked in src/validation.ts). */
export const HTTP_URL_FORMAT = 'http-url';
