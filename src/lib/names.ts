/**
 * Names of authors, series and tags are trimmed, and unique case-insensitively (decisions.md).
 * The key is the NFC-normalised, Unicode-lowercased name, so "Émile" and "ÉMILE" collide even
 * though SQLite's own NOCASE folds only ASCII.
 */
export function nameKey(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}

/** The display form that is stored: trimmed and NFC-normalised. */
export function cleanName(name: string): string {
  return name.trim().normalize('NFC');
}

/** Escapes `%`, `_` and `\` so user text is matched literally by `LIKE ... ESCAPE '\'`. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Like {@link likeContains}, anchored at the start. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
