import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { CLIENT_BUILD, PACKAGE_ROOT, WEB_SOURCE } from './paths.js';

/** The browser's copy of an asset may be kept a year and never revalidated: its name changes with its bytes. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** An asset as served: where its bytes are and its media type. */
export interface AssetFile {
  root: string;
  file: string;
  type: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/**
 * Every file the pages may load, by its hashed public name (`app.3f9c0a1b2c.css`), computed once
 * at start-up from the bytes: the hand-written files of src/web/assets, the compiled browser
 * modules of dist/web/client, and one file from node_modules (htmx). Nothing else is servable,
 * so no request path ever reaches the file system (docs/web.md, "Assets").
 */
export class AssetManifest {
  private readonly byLogical = new Map<string, string>();
  private readonly byPublic = new Map<string, AssetFile>();

  constructor() {
    for (const name of listFiles(path.join(WEB_SOURCE, 'assets'))) this.add(name, path.join(WEB_SOURCE, 'assets'), name);
    for (const name of listFiles(CLIENT_BUILD).filter((file) => file.endsWith('.js'))) this.add(name, CLIENT_BUILD, name);
    const htmx = createRequire(path.join(PACKAGE_ROOT, 'package.json')).resolve('htmx.org/dist/htmx.min.js');
    this.add('htmx.js', path.dirname(htmx), path.basename(htmx));
  }

  private add(logical: string, root: string, file: string): void {
    const ext = path.extname(logical);
    const type = TYPES[ext];
    if (type === undefined) return;
    const hash = createHash('sha256').update(fs.readFileSync(path.join(root, file))).digest('hex').slice(0, 10);
    const publicName = `${logical.slice(0, -ext.length)}.${hash}${ext}`;
    this.byLogical.set(logical, publicName);
    this.byPublic.set(publicName, { root, file, type });
  }

  /** `/assets/<name>.<hash>.<ext>` for a logical name, or undefined when that file does not exist (a client module not built yet). */
  url(logical: string): string | undefined {
    const name = this.byLogical.get(logical);
    return name === undefined ? undefined : `/assets/${name}`;
  }

  /** The file behind a hashed public name, or undefined for any other name. */
  lookup(publicName: string): AssetFile | undefined {
    return this.byPublic.get(publicName);
  }

  /** The logical names of the compiled browser modules (every page loads them all). */
  clientModules(): string[] {
    return [...this.byLogical.keys()].filter((name) => name.endsWith('.js') && name !== 'htmx.js').sort();
  }
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
}
