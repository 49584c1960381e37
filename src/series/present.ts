import type { SeriesRow } from '../db/schema.js';
import type { SeriesDto } from '../schemas/series.js';

/** A series row as the API shows it (docs/api.md, "Fields › Series"). */
export function presentSeries(row: SeriesRow): SeriesDto {
  return { id: row.id, name: row.name, description: row.description, storyCount: row.storyCount, createdAt: row.createdAt };
}
