import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The `name` and `version` of this package (package.json), found from this file both under
 * `src/` (tsx, tests) and `dist/src/` (npm start); `unknown` when no package.json is found.
 * Read once: an archive's manifest names the version that wrote it.
 */
export const APP_IDENTITY: Readonly<{ name: string; version: string }> = readIdentity();

function readIdentity(): { name: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      return { name: String(parsed.name ?? 'storyshelf'), version: String(parsed.version ?? 'unknown') };
    }
    dir = path.dirname(dir);
  }
  return { name: 'storyshelf', version: 'unknown' };
}
