import type { SeriesRow } from '../db/schema.js';
import type { SeriesDto } from '../schemas/series.js';

/** A series row as the API shows it (spec 2.5). */
export function presentSeries(row: SeriesRow): SeriesDto {
  return { id: row.id, name: row.name, description: row.description, storyCount: row.storyCount, createdAt: row.createdAt };
}
