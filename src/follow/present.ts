import type { UpdateRow } from '../import/url/source-rows.js';
import type { StoryUpdateDto } from '../schemas/source.js';

const ORIGINS = ['import', 'refresh', 'schedule', 'file'] as const;

function titles(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A `story_updates` row as the API shows it. */
export function presentUpdate(row: UpdateRow): StoryUpdateDto {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(row.details) as Record<string, unknown>;
  } catch {
    details = {};
  }
  return {
    id: row.id,
    at: row.at,
    origin: (ORIGINS as readonly string[]).includes(row.origin) ? (row.origin as StoryUpdateDto['origin']) : 'refresh',
    sourceUrl: row.sourceUrl,
    addedChapters: row.addedChapters,
    updatedChapters: row.updatedChapters,
    keptChapters: row.keptChapters,
    goneChapters: row.goneChapters,
    details: { added: titles(details.added), updated: titles(details.updated), kept: titles(details.kept), gone: titles(details.gone) },
  };
}
