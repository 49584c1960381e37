import type { TagRow } from '../db/schema.js';
import type { TagDto } from '../schemas/tag.js';

/** A tag row as the API shows it (docs/api.md, "Fields › Tag"). */
export function presentTag(row: TagRow): TagDto {
  return { id: row.id, name: row.name, storyCount: row.storyCount, createdAt: row.createdAt, updatedAt: row.updatedAt, kind: row.kind };
}
