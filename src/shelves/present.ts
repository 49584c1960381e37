import type { ShelfDto, SmartShelfQuery } from '../schemas/shelf.js';
import type { ShelfWithCount } from './repository.js';

/** A smart shelf's saved search as stored (JSON written by ./service.ts, or restored from an archive after the same check). */
export function savedQuery(row: { query: string | null }): SmartShelfQuery | null {
  return row.query === null ? null : (JSON.parse(row.query) as SmartShelfQuery);
}

/** A shelf as the API shows it (docs/api.md, "Shelves — /api/shelves"): a smart shelf has its query and no count. */
export function presentShelf(row: ShelfWithCount): ShelfDto {
  const smart = row.kind === 'smart';
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    kind: row.kind,
    query: smart ? savedQuery(row) : null,
    storyCount: smart ? null : row.storyCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
