/**
 * Names of authors and series are trimmed, and unique case-insensitively (docs/decisions.md,
 * "Name keys (case folding)"). The key is a full case fold, not a lowercasing: NFC, then upper- and
 * lowercased (so "ß" and "ẞ" become "ss", ligatures such as "ﬁ" their letters), final sigma "ς"
 * read as "σ" (so "ΣΟΦΟΣ" and "σοφοσ" are one name), NFC again. "İ" (dotted capital I) keeps its
 * dot as "i̇" (i + U+0307) and so differs from "I"/"i"; dotless "ı" becomes "i", as its capital is
 * "I". SQLite's own NOCASE folds only ASCII; migrations call this same function as SQL
 * `storyshelf_name_key` (src/db/open.ts).
 */
export function nameKey(name: string): string {
  return name.trim().normalize('NFC').toUpperCase().toLowerCase().replace(/ς/g, 'σ').normalize('NFC');
}

/**
 * A tag's display name as stored (docs/decisions.md, "Shapes and values": "stored lowercased"): trimmed, NFC, lowercased. Tags
 * are unique and found by {@link nameKey} of it (their `name_key` column), not by this.
 */
export function storedTagName(name: string): string {
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
