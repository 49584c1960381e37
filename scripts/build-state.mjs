// Whether dist/ holds a build of the current sources, for scripts/build.mjs (which compiles when
// it does not) and for the tests that start the server as `npm start` does
// (test/helpers/server-process.ts, which runs the compiled server only when it is current).
//
// Inputs: src/ (the browser modules of src/web/client included), scripts/ and tsconfig*.json, files
// and folders (a deleted file changes its folder's mtime). drizzle/ is not one: the migrations are
// read from that folder at run time, never compiled. The stamp, dist/.build-stamp, carries the time
// the last successful build *started*, so a file saved while tsc was running still counts as newer
// next time.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The stamp file of the build in `root`'s dist/. */
export const stampFileOf = (root) => path.join(root, 'dist', '.build-stamp');

/**
 * The newest input under `root`, as [mtime in ms, path relative to the root].
 * @param {string} root
 * @returns {[number, string]}
 */
function newestInput(root) {
  /** @type {[number, string]} */
  let newest = [0, ''];
  /** @param {string} file */
  const consider = (file) => {
    const mtime = statSync(file).mtimeMs;
    if (mtime > newest[0]) newest = [mtime, path.relative(root, file)];
  };
  for (const name of readdirSync(root)) {
    if (/^tsconfig.*\.json$/.test(name)) consider(path.join(root, name));
  }
  for (const folder of ['src', 'scripts']) {
    const top = path.join(root, folder);
    consider(top);
    for (const entry of readdirSync(top, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() || entry.isDirectory()) consider(path.join(entry.parentPath, entry.name));
    }
  }
  return newest;
}

/**
 * Why the checkout at `root` needs a build, or undefined when its dist/ is up to date.
 * @param {string} root
 * @returns {string | undefined}
 */
export function staleBecause(root) {
  const stampFile = stampFileOf(root);
  if (!existsSync(stampFile)) return 'there is no build in dist/ yet';
  const [mtime, file] = newestInput(root);
  return mtime > statSync(stampFile).mtimeMs ? `${file} changed since the last build` : undefined;
}
