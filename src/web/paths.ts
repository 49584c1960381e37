import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root, found from this file both under `src/` (tsx, tests) and `dist/src/` (npm
 * start): templates and CSS are read from `src/web/` at run time, so `npm start` needs no copy
 * step (docs/web.md, "Layout").
 */
function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'web'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error('The package root (with src/web/) was not found above the application');
}

export const PACKAGE_ROOT = findPackageRoot();
/** Where the templates live: one folder per page group. */
export const WEB_SOURCE = path.join(PACKAGE_ROOT, 'src', 'web');
/** The browser modules compiled by `tsc -p tsconfig.web.json`. */
export const CLIENT_BUILD = path.join(PACKAGE_ROOT, 'dist', 'web', 'client');
