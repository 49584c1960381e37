/**
 * XHTML helpers for the EPUB writer (docs/decisions.md, "EPUB export"): every string that goes
 * into a package document or an XHTML file passes through the one XML escaper (src/lib/xml.ts).
 */
import { escapeXml } from '../lib/xml.js';

/** The head every XHTML file of the book shares: XML declaration, doctype, the EPUB namespace. */
export function xhtmlDocument(title: string, language: string, body: string): string {
  const lang = escapeXml(language);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n' +
    `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${lang}" lang="${lang}">\n` +
    `<head>\n<meta charset="UTF-8"/>\n<title>${escapeXml(title)}</title>\n<link rel="stylesheet" type="text/css" href="style.css"/>\n</head>\n` +
    `<body>\n${body}\n</body>\n</html>\n`
  );
}
