/**
 * otwarchive's languages as BCP 47 tags (docs/decisions.md, "Sources"). A work page names its
 * language in the language's own name ("Português brasileiro") and gives the archive's short
 * code in a `lang` attribute. The codes are the archive's own: mostly ISO 639-1 (`en`, `de`),
 * but a few are not BCP 47 (`ptBR`, `ptPT`), so the name decides first, from this table of the
 * archive's most used languages, then a short code that is already a well-formed tag, else null
 * (unknown: the EPUB and OPDS then say `en`).
 */
const BY_NAME: Readonly<Record<string, string>> = {
  English: 'en',
  Español: 'es',
  Français: 'fr',
  Deutsch: 'de',
  Italiano: 'it',
  'Português brasileiro': 'pt-BR',
  'Português europeu': 'pt-PT',
  Русский: 'ru',
  'Українська': 'uk',
  Polski: 'pl',
  Čeština: 'cs',
  Nederlands: 'nl',
  Svenska: 'sv',
  Dansk: 'da',
  Norsk: 'no',
  Suomi: 'fi',
  Magyar: 'hu',
  Türkçe: 'tr',
  Ελληνικά: 'el',
  Català: 'ca',
  'Bahasa Indonesia': 'id',
  'Bahasa Malaysia': 'ms',
  'Tiếng Việt': 'vi',
  Filipino: 'fil',
  'ภาษาไทย': 'th',
  '中文-普通话 國語': 'zh',
  '中文-广东话 粵語': 'yue',
  日本語: 'ja',
  한국어: 'ko',
  العربية: 'ar',
  עברית: 'he',
  فارسی: 'fa',
  हिन्दी: 'hi',
  Esperanto: 'eo',
};

/** The archive's short codes that are not BCP 47 as written. */
const BY_CODE: Readonly<Record<string, string>> = { ptBR: 'pt-BR', ptPT: 'pt-PT' };

const WELL_FORMED = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/** The BCP 47 tag for the archive's language `name` (and its `lang` short code), or null. */
export function otwLanguage(name: string, shortCode: string | undefined): string | null {
  const byName = BY_NAME[name.trim()];
  if (byName !== undefined) return byName;
  const code = (shortCode ?? '').trim();
  if (BY_CODE[code] !== undefined) return BY_CODE[code];
  return WELL_FORMED.test(code) ? code : null;
}
