/**
 * The reader's typography settings (font size, line height, width), kept in a `reader` cookie so
 * the server renders them and nothing flashes on load (docs/decisions.md, "Story page and
 * reader"). Each is a small named choice; the CSS maps it to a value.
 */

export const READER_COOKIE = 'reader';

export const READER_CHOICES = {
  size: ['small', 'medium', 'large', 'x-large'],
  leading: ['compact', 'normal', 'relaxed'],
  width: ['narrow', 'medium', 'wide'],
} as const;

export type ReaderSetting = keyof typeof READER_CHOICES;
export type ReaderSettings = { [K in ReaderSetting]: (typeof READER_CHOICES)[K][number] };

export const DEFAULT_READER_SETTINGS: ReaderSettings = { size: 'medium', leading: 'normal', width: 'medium' };

const LABELS: Record<string, string> = {
  small: 'Small',
  medium: 'Medium',
  large: 'Large',
  'x-large': 'Extra large',
  compact: 'Compact',
  normal: 'Normal',
  relaxed: 'Relaxed',
  narrow: 'Narrow',
  wide: 'Wide',
};

export function choiceLabel(value: string): string {
  return LABELS[value] ?? value;
}

function pick<K extends ReaderSetting>(key: K, value: unknown): ReaderSettings[K] | undefined {
  return typeof value === 'string' && (READER_CHOICES[key] as readonly string[]).includes(value) ? (value as ReaderSettings[K]) : undefined;
}

/** The settings from the cookie (`size.leading.width`); unknown or missing parts are the defaults. */
export function parseReaderCookie(cookie: string | undefined): ReaderSettings {
  const [size, leading, width] = (cookie ?? '').split('.');
  return {
    size: pick('size', size) ?? DEFAULT_READER_SETTINGS.size,
    leading: pick('leading', leading) ?? DEFAULT_READER_SETTINGS.leading,
    width: pick('width', width) ?? DEFAULT_READER_SETTINGS.width,
  };
}

export function readerCookieValue(settings: ReaderSettings): string {
  return `${settings.size}.${settings.leading}.${settings.width}`;
}

/** The settings a form sent; undefined names the first field that is not one of its choices. */
export function parseReaderForm(fields: Record<string, string | undefined>): ReaderSettings | { invalid: ReaderSetting } {
  const size = pick('size', fields.size);
  if (size === undefined) return { invalid: 'size' };
  const leading = pick('leading', fields.leading);
  if (leading === undefined) return { invalid: 'leading' };
  const width = pick('width', fields.width);
  if (width === undefined) return { invalid: 'width' };
  return { size, leading, width };
}
