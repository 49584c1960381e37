import type { UpdateRow } from '../import/url/source-rows.js';
import type { UpdateEntryRow } from './updates-repository.js';
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

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** "2 new chapters, 1 chapter revised": what an update did (an import says the story arrived). */
export function updateHeadline(row: Pick<UpdateRow, 'origin' | 'addedChapters' | 'updatedChapters' | 'keptChapters' | 'goneChapters'>): string {
  if (row.origin === 'import') return `added to the library with ${plural(row.addedChapters, 'chapter', 'chapters')}`;
  const parts = [
    row.addedChapters > 0 ? plural(row.addedChapters, 'new chapter', 'new chapters') : undefined,
    row.updatedChapters > 0 ? `${plural(row.updatedChapters, 'chapter', 'chapters')} revised` : undefined,
    row.goneChapters > 0 ? `${plural(row.goneChapters, 'chapter', 'chapters')} gone from the source` : undefined,
    row.keptChapters > 0 ? `${plural(row.keptChapters, 'chapter', 'chapters')} kept (the new text looked like a stub)` : undefined,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'checked' : parts.join(', ');
}

/** "The Long Way Round — 2 new chapters": an update as a feed entry's or a notification's title. */
export function updateTitle(row: UpdateEntryRow): string {
  return `${row.title} — ${updateHeadline(row)}`;
}

/** The chapters each kind names, then where the update came from: plain text, one line each. */
export function updateSummary(row: UpdateEntryRow): string {
  const { details } = presentUpdate(row);
  const lines = [
    details.added.length > 0 ? `New: ${details.added.join('; ')}` : undefined,
    details.updated.length > 0 ? `Revised: ${details.updated.join('; ')}` : undefined,
    details.gone.length > 0 ? `Gone from the source (kept here): ${details.gone.join('; ')}` : undefined,
    details.kept.length > 0 ? `Kept as they were: ${details.kept.join('; ')}` : undefined,
    row.sourceUrl === null ? undefined : `From ${row.sourceUrl}`,
  ];
  return lines.filter((line) => line !== undefined).join('\n');
}
