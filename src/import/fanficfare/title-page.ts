/**
 * FanFicFare's title page as typed metadata (docs/decisions.md, "File import"). The page is the
 * only place FanFicFare keeps what each tag is (its `dc:subject` list mixes them), one entry per
 * line: `<b>Label:</b> value<br />` in an EPUB and in the HTML output's table, `Label: value` in
 * the TXT output. The labels matched are FanFicFare's default English ones (its defaults.ini
 * `*_label`), with AO3's extra entries; a renamed label is passed over, never guessed at.
 */
import { squeeze, type RawStory, type RawTag, type TagKind } from '../raw-story.js';

/** One line of the title page: its label without the colon, its value as text. */
export interface TitlePageEntry {
  label: string;
  value: string;
}

/** Which entries are tag lists, and the kind each gives. */
const TAG_LABELS: Readonly<Record<string, TagKind>> = {
  category: 'fandom',
  fandoms: 'fandom',
  genre: 'freeform',
  'freeform tags': 'freeform',
  characters: 'character',
  relationships: 'relationship',
  warnings: 'warning',
  'ao3 categories': 'category',
};

/** FanFicFare's own status words, and the ones its sites pass through. */
export function statusOf(text: string | undefined): RawStory['status'] {
  const value = squeeze(text)?.toLowerCase();
  if (value === undefined) return undefined;
  if (/^complete(d)?$/.test(value)) return 'complete';
  if (/^(in[- ]?progress|incomplete|ongoing|work in progress|wip)$/.test(value)) return 'in-progress';
  return undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?Z?)?$/;

/**
 * A date as FanFicFare writes it (`1975-03-15`, `2024-05-13 10:18:38`, ISO) as ISO 8601 UTC;
 * a date alone is midnight UTC. Anything else (a renamed format) is left out.
 */
export function isoDateOf(text: string | undefined): string | undefined {
  const match = DATE.exec(squeeze(text) ?? '');
  if (match === null) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = match;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  return Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(d) ? undefined : date.toISOString();
}

/** `The Great Test [4]`: the series name and its volume in brackets. */
export function seriesLineOf(text: string | undefined): Pick<RawStory, 'seriesName' | 'volume'> {
  const value = squeeze(text);
  if (value === undefined) return {};
  const match = /^(.*?)\s*\[(\d+(?:\.\d+)?)\]$/.exec(value);
  if (match === null) return { seriesName: value };
  const seriesName = squeeze(match[1]);
  return seriesName === undefined ? {} : { seriesName, volume: Math.trunc(Number(match[2])) };
}

const BCP47 = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/** A language tag as given (`en`, `pt-BR`), if it has the shape of one. */
export function languageTagOf(text: string | undefined): string | undefined {
  const value = squeeze(text);
  return value !== undefined && BCP47.test(value) ? value : undefined;
}

let namesToCodes: Map<string, string> | undefined;

/**
 * The BCP 47 tag of a language's English name (the title page says `English`, not `en`): the
 * names the runtime's own `Intl.DisplayNames` gives the ISO 639-1 codes.
 */
export function languageOfName(text: string | undefined): string | undefined {
  const name = squeeze(text)?.toLowerCase();
  if (name === undefined) return undefined;
  if (namesToCodes === undefined) {
    namesToCodes = new Map();
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    for (let first = 97; first <= 122; first += 1) {
      for (let second = 97; second <= 122; second += 1) {
        const code = String.fromCharCode(first, second);
        const display = names.of(code);
        if (display !== undefined && display !== code) namesToCodes.set(display.toLowerCase(), code);
      }
    }
  }
  return namesToCodes.get(name) ?? languageTagOf(text);
}

/** A list value as FanFicFare joins it (`, `), each name once. */
function listOf(value: string): string[] {
  return [...new Set(value.split(/,\s+/).map((name) => squeeze(name)).filter((name): name is string => name !== undefined))];
}

/** The typed fields and tags of a title page's entries; the first entry of a label wins. */
export function titlePageFields(entries: readonly TitlePageEntry[]): Omit<RawStory, 'chapters'> & { tags: RawTag[] } {
  const byLabel = new Map<string, string>();
  for (const entry of entries) {
    const label = entry.label.trim().toLowerCase();
    if (!byLabel.has(label)) byLabel.set(label, entry.value);
  }
  const tags: RawTag[] = [];
  for (const [label, kind] of Object.entries(TAG_LABELS)) {
    const value = byLabel.get(label);
    if (value !== undefined) for (const name of listOf(value)) tags.push({ name, kind });
  }
  const rating = squeeze(byLabel.get('rating'));
  if (rating !== undefined) tags.push({ name: rating, kind: 'rating' });
  const fields: Omit<RawStory, 'chapters'> & { tags: RawTag[] } = { tags, ...seriesLineOf(byLabel.get('series')) };
  const status = statusOf(byLabel.get('status'));
  if (status !== undefined) fields.status = status;
  const publishedAt = isoDateOf(byLabel.get('published'));
  if (publishedAt !== undefined) fields.publishedAt = publishedAt;
  const updatedAt = isoDateOf(byLabel.get('updated'));
  if (updatedAt !== undefined) fields.sourceUpdatedAt = updatedAt;
  const language = languageOfName(byLabel.get('language'));
  if (language !== undefined) fields.language = language;
  const summary = squeeze(byLabel.get('summary'));
  if (summary !== undefined) fields.summary = summary;
  return fields;
}
