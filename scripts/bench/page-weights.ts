/**
 * What a browser downloads besides the HTML, for `npm run bench` (docs/performance.md, "Web
 * pages"): every distinct script the pages reference (each once, gzipped) and the library page's
 * HTML and CSS.
 */
import { gzipSync } from 'node:zlib';

/** What a browser downloads besides the HTML: every distinct script over the pages, and the library page's weight. */
export interface PageWeights {
  pagesScanned: string[];
  scripts: Array<{ src: string; bytes: number; gzipBytes: number }>;
  scriptsGzipBytes: number;
  library: { htmlBytes: number; htmlGzipBytes: number; cssBytes: number; cssGzipBytes: number };
}

export async function pageWeights(origin: string, token: string, story: string, searchWord: string): Promise<PageWeights> {
  const get = async (url: string, withToken = true) => {
    const response = await fetch(`${origin}${url}`, { headers: withToken ? { cookie: `token=${token}` } : {} });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${url}: expected 200, got ${response.status}`);
    return body;
  };
  const author = (await get(`/stories/${story}`)).toString().match(/href="(\/authors\/[0-9a-f-]{36})"/)?.[1];
  const pages = [
    '/',
    '/library',
    '/library?view=list',
    `/stories/${story}`,
    `/stories/${story}/read`,
    `/stories/${story}/edit`,
    `/stories/${story}/delete`,
    '/stories/new',
    `/search?q=${encodeURIComponent(searchWord)}`,
    '/tags',
    '/settings',
    ...(author === undefined ? [] : [author]),
  ];
  const sources = new Set<string>();
  const collect = (html: string) => {
    for (const match of html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"/g)) sources.add(match[1]!);
  };
  for (const url of pages) collect((await get(url)).toString());
  collect((await get('/login', false)).toString());
  const scripts: PageWeights['scripts'] = [];
  for (const src of [...sources].sort()) {
    const bytes = await get(src);
    scripts.push({ src, bytes: bytes.length, gzipBytes: gzipSync(bytes).length });
  }
  const html = await get('/library');
  let cssBytes = 0;
  let cssGzipBytes = 0;
  for (const match of html.toString().matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)) {
    const css = await get(match[1]!);
    cssBytes += css.length;
    cssGzipBytes += gzipSync(css).length;
  }
  return {
    pagesScanned: [...pages, '/login'],
    scripts,
    scriptsGzipBytes: scripts.reduce((sum, script) => sum + script.gzipBytes, 0),
    library: { htmlBytes: html.length, htmlGzipBytes: gzipSync(html).length, cssBytes, cssGzipBytes },
  };
}
