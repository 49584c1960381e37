/**
 * Reading EPUB files in tests: the ZIP entries in stored order (with their compression method),
 * the package document and XHTML parsed as XML, and a download helper.
 */
import { DomUtils, parseDocument } from 'htmlparser2';
import yauzl from 'yauzl';
import type { TestContext } from './app.js';
import { fileUpload } from './multipart.js';

export interface EpubEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  bytes: Buffer;
}

/** Every entry of a ZIP, in the order of its central directory. */
export async function readZip(bytes: Buffer): Promise<EpubEntry[]> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const entries: EpubEntry[] = [];
  for await (const entry of zip.eachEntry()) {
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    entries.push({ name: entry.fileName, method: entry.compressionMethod, bytes: Buffer.concat(chunks) });
  }
  zip.close();
  return entries;
}

/** The text of one entry; throws when there is none. */
export function entryText(entries: readonly EpubEntry[], name: string): string {
  const entry = entries.find((e) => e.name === name);
  if (entry === undefined) throw new Error(`no entry ${name} in ${entries.map((e) => e.name).join(', ')}`);
  return entry.bytes.toString('utf8');
}

/** An XML document's elements named `name` (namespace prefix included, e.g. `dc:subject`). */
export function xmlElements(xml: string, name: string) {
  return DomUtils.getElementsByTagName(name, parseDocument(xml, { xmlMode: true }).children, true);
}

/** Text of each element named `name`. */
export function xmlTexts(xml: string, name: string): string[] {
  return xmlElements(xml, name).map((element) => DomUtils.textContent(element));
}

/** Downloads a book: its response and bytes; throws unless 200. */
export async function download(ctx: TestContext, url: string) {
  const res = await ctx.get(url);
  if (res.statusCode !== 200) throw new Error(`download failed: ${res.statusCode} ${res.body}`);
  return { res, bytes: res.rawPayload };
}

/** Uploads an image into covers/ and returns its stored path. */
export async function uploadImage(ctx: TestContext, bytes: Buffer, name: string, type: string): Promise<string> {
  const body = fileUpload(bytes, name, type);
  const res = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: body.payload, headers: body.headers });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().path as string;
}
