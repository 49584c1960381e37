/** Files to import, built in memory (ZIP archives and EPUBs with yazl), and waiting for a job. */
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import yazl from 'yazl';
import type { JobDto } from '../../src/schemas/job.js';
import type { TestContext } from './app.js';
import { multipart, type FilePart } from './multipart.js';

export interface ZipEntry {
  name: string;
  data: string | Buffer;
  /** Unix mode bits, e.g. `0o120777` for a symbolic link. */
  mode?: number;
  /** Stored without compression (the EPUB `mimetype`). */
  store?: boolean;
}

/** A ZIP archive of these entries, in this order. */
export function zipOf(entries: readonly ZipEntry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    const data = typeof entry.data === 'string' ? Buffer.from(entry.data) : entry.data;
    zip.addBuffer(data, entry.name, { compress: entry.store !== true, mtime: new Date(0), ...(entry.mode === undefined ? {} : { mode: entry.mode }) });
  }
  zip.end();
  return buffer(zip.outputStream);
}

export interface EpubOptions {
  title?: string;
  author?: string;
  /** Every author in order (each a `dc:creator`), in place of `author`. */
  authors?: string[];
  subjects?: string[];
  description?: string;
  source?: string;
  series?: string;
  seriesIndex?: string;
}

const chapter = (title: string, body: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head><body>${body}</body></html>`;

/**
 * An EPUB 2 as FanFicFare writes one: `mimetype` stored first, `META-INF/container.xml`, an OPF
 * with Dublin Core metadata, calibre series meta, and two chapter XHTML files in the spine.
 */
export function fanficEpub(options: EpubOptions = {}): Promise<Buffer> {
  const o = {
    title: 'The Long Way Home',
    author: 'Quill Writer',
    subjects: ['Adventure', 'Found Family', 'Slow Burn'],
    description: '<p>Two friends <b>cross</b> a desert.</p>',
    source: 'https://fanfic.example/s/12345/1/',
    series: 'Desert Tales',
    seriesIndex: '2.0',
    ...options,
  };
  const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const opf = `<?xml version="1.0" encoding="UTF-8"?>
<package version="2.0" xmlns="http://www.idpf.org/2007/opf" unique-identifier="fanficfare-uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:identifier id="fanficfare-uid">fanficfare-uid:fanfic.example-u1-s12345</dc:identifier>
    <dc:title>${escapeXml(o.title)}</dc:title>
    ${(o.authors ?? [o.author]).map((name) => `<dc:creator opf:role="aut">${escapeXml(name)}</dc:creator>`).join('\n    ')}
    <dc:contributor opf:role="bkp">FanFicFare [https://github.com/JimmXinu/FanFicFare]</dc:contributor>
    <dc:language>en</dc:language>
    ${o.subjects.map((subject) => `<dc:subject>${escapeXml(subject)}</dc:subject>`).join('\n    ')}
    <dc:description>${escapeXml(o.description)}</dc:description>
    <dc:source>${escapeXml(o.source)}</dc:source>
    <dc:identifier opf:scheme="URL">${escapeXml(o.source)}</dc:identifier>
    <meta name="calibre:series" content="${escapeXml(o.series)}"/>
    <meta name="calibre:series_index" content="${escapeXml(o.seriesIndex)}"/>
  </metadata>
  <manifest>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="title_page" href="OEBPS/title_page.xhtml" media-type="application/xhtml+xml"/>
    <item id="file0001" href="OEBPS/file0001.xhtml" media-type="application/xhtml+xml"/>
    <item id="file0002" href="OEBPS/file0002.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine toc="ncx">
    <itemref idref="file0001"/>
    <itemref idref="file0002"/>
  </spine>
</package>`;
  return zipOf([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    {
      name: 'META-INF/container.xml',
      data: `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    },
    { name: 'content.opf', data: opf },
    { name: 'OEBPS/file0001.xhtml', data: chapter('Chapter 1', '<h2>Chapter 1: Sand</h2><p>The first chapter begins.</p><img src="images/map.png" alt="map"/>') },
    { name: 'OEBPS/file0002.xhtml', data: chapter('Chapter 2: Stars', '<p>The second chapter ends under the stars.</p>') },
  ]);
}

/** A multipart body with one `file` part per file. */
export function importBody(files: ReadonlyArray<{ filename: string; data: Buffer | string }>) {
  return multipart(files.map((file): FilePart => ({ name: 'file', filename: file.filename, data: Buffer.from(file.data) })));
}

/** Posts files to `POST /api/import/files`. */
export function postImport(ctx: TestContext, files: ReadonlyArray<{ filename: string; data: Buffer | string }>) {
  const body = importBody(files);
  return ctx.request({ method: 'POST', url: '/api/import/files', payload: body.payload, headers: body.headers });
}

const FINISHED = ['done', 'failed', 'cancelled'];

/** Polls `GET /api/jobs/{id}` until the job has finished (20 s at most). */
export async function waitForJob(ctx: TestContext, id: string): Promise<JobDto> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const job = (await ctx.get(`/api/jobs/${id}`)).json() as JobDto;
    if (FINISHED.includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after 20 s`);
    await sleep(20);
  }
}
