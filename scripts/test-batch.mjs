// Runs several compiled test files in one `node` process, for scripts/test.mjs: each file is
// imported in turn, and its tests join the one tap root of the process, run one after another in
// the order the files were given. A process costs ~1.7 s of CPU before its first test (importing
// tap and the app's ~675 modules), which a batch pays once (docs/performance.md, "Test suite
// time"). Only files that leave the process as they found it are batched (scripts/test.mjs,
// BATCHES); a failure's report names its file and line, as before.
//
//   node scripts/test-batch.mjs dist/test/routes/a.test.js dist/test/routes/b.test.js
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(file).href);
