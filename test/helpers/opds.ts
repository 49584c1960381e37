/**
 * Reading OPDS feeds in tests (docs/api.md, "OPDS catalog"): a feed parsed as XML (htmlparser2 in XML
 * mode, which decodes entities as an XML parser does), its links and entries as plain objects,
 * and the real checkers, xmllint and jing with the Atom grammar of test/fixtures/atom.rnc, run
 * once over a batch of documents.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DomUtils, parseDocument } from 'htmlparser2';
import { isTag, type Document, type Element } from 'domhandler';
import type { Test } from 'tap';
import { tempDataDir } from './app.js';

const run = promisify(execFile);
const ATOM_RNC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/atom.rnc');

export type Attributes = Record<string, string>;

export interface ParsedEntry {
  id: string;
  title: string;
  updated: string;
  content: string | undefined;
  authors: { name: string; uri: string | undefined }[];
  /** `dc:language`, when the entry has one. */
  language: string | undefined;
  categories: Attributes[];
  links: Attributes[];
}

export interface ParsedFeed {
  root: string;
  id: string;
  title: string;
  updated: string;
  links: Attributes[];
  entries: ParsedEntry[];
  totalResults: number | undefined;
  /** Every `href`, `uri` and OpenSearch `template` in the document. */
  addresses: string[];
}

const children = (node: Element | Document, name: string) => node.children.filter((child): child is Element => isTag(child) && child.name === name);
const text = (node: Element | Document, name: string) => {
  const found = children(node, name)[0];
  return found === undefined ? undefined : DomUtils.textContent(found);
};

function entryOf(node: Element): ParsedEntry {
  return {
    id: text(node, 'id') ?? '',
    title: text(node, 'title') ?? '',
    updated: text(node, 'updated') ?? '',
    content: text(node, 'content'),
    authors: children(node, 'author').map((author) => ({ name: text(author, 'name') ?? '', uri: text(author, 'uri') })),
    language: text(node, 'dc:language'),
    categories: children(node, 'category').map((category) => ({ ...category.attribs })),
    links: children(node, 'link').map((link) => ({ ...link.attribs })),
  };
}

/** The feed (or OpenSearch description) as plain objects. */
export function parseFeed(xml: string): ParsedFeed {
  const doc = parseDocument(xml, { xmlMode: true });
  const root = doc.children.find((child): child is Element => isTag(child));
  if (root === undefined) throw new Error('no root element');
  const total = text(root, 'opensearch:totalResults');
  const addresses = DomUtils.findAll(() => true, doc.children).flatMap((element) => {
    if (element.name === 'uri') return [DomUtils.textContent(element)];
    return ['href', 'template'].flatMap((name) => (element.attribs[name] === undefined ? [] : [element.attribs[name] as string]));
  });
  return {
    root: root.name,
    id: text(root, 'id') ?? '',
    title: text(root, 'title') ?? '',
    updated: text(root, 'updated') ?? '',
    links: children(root, 'link').map((link) => ({ ...link.attribs })),
    entries: children(root, 'entry').map(entryOf),
    totalResults: total === undefined ? undefined : Number(total),
    addresses,
  };
}

/** The `href` of the feed's one link with this `rel` (and type, when given); undefined when none. */
export function linkHref(links: readonly Attributes[], rel: string, type?: string): string | undefined {
  return links.find((link) => link.rel === rel && (type === undefined || link.type === type))?.href;
}

/**
 * Writes the documents to a temp folder and runs xmllint (well-formedness) and jing (the Atom
 * RELAX NG grammar) once each over all of them; the OpenSearch descriptions (`atom: false`) get
 * xmllint only. Fails the test with each checker's own output.
 */
export async function checkDocuments(t: Test, documents: readonly { name: string; xml: string; atom: boolean }[]): Promise<void> {
  const dir = tempDataDir(t);
  const files = documents.map((document) => {
    const file = path.join(dir, `${document.name.replace(/[^\w-]/g, '_')}.xml`);
    fs.writeFileSync(file, document.xml);
    return { file, atom: document.atom };
  });
  const lint = await run('xmllint', ['--noout', ...files.map((f) => f.file)]).then(
    () => '',
    (error: { stderr?: string }) => error.stderr ?? String(error),
  );
  t.equal(lint, '', `xmllint finds all ${files.length} documents well-formed`);
  const atom = files.filter((f) => f.atom).map((f) => f.file);
  const jing = await run('jing', ['-c', ATOM_RNC, ...atom]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  t.equal(jing, '', `jing finds all ${atom.length} feeds valid Atom`);
}
