/**
 * XML text helpers for the EPUB writer (docs/decisions.md, "EPUB export"): every string that goes
 * into a package document or an XHTML file passes through one of these.
 */

/**
 * Characters XML 1.0 forbids (C0 controls but tab, newline and return; U+FFFE, U+FFFF) and lone
 * surrogates: a single one makes the whole file unreadable to an XML parser, so they are dropped.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` without the characters XML cannot hold. */
export function xmlChars(text: string): string {
  return text.replace(NOT_XML, '');
}

/** Text content: `&`, `<` and `>` escaped, characters XML cannot hold dropped. */
export function escapeText(text: string): string {
  return xmlChars(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A double-quoted attribute value. */
export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
}

/** The head every XHTML file of the book shares: XML declaration, doctype, the EPUB namespace. */
export function xhtmlDocument(title: string, language: string, body: string): string {
  const lang = escapeAttribute(language);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n' +
    `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${lang}" lang="${lang}">\n` +
    `<head>\n<meta charset="UTF-8"/>\n<title>${escapeText(title)}</title>\n<link rel="stylesheet" type="text/css" href="style.css"/>\n</head>\n` +
    `<body>\n${body}\n</body>\n</html>\n`
  );
}
