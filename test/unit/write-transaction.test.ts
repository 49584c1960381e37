import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { createRequire } from 'node:module';
import t from 'tap';
import { createTag } from '../../src/tags/service.js';
import { buildTestApp } from '../helpers/app.js';

/**
 * Found by the long soak: writes answered 500 'database is locked' while the WAL checkpoint
 * worker ran a RESTART checkpoint. A deferred write transaction that reads before it writes is
 * refused at once when it must upgrade; writeTransaction now begins IMMEDIATE and waits instead.
 */
t.test('writes that read first go through while another connection runs RESTART checkpoints', async (t) => {
  const ctx = await buildTestApp(t);
  const file = path.join(ctx.dataDir, 'library.db');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(
    `const Database = require(${JSON.stringify(driver)});
     const db = new Database(${JSON.stringify(file)});
     db.pragma('busy_timeout = 5000');
     setInterval(() => { try { db.pragma('wal_checkpoint(RESTART)'); } catch {} }, 5);`,
    { eval: true },
  );
  t.teardown(() => worker.terminate());
  await new Promise((resolve) => setTimeout(resolve, 100));

  const failures: string[] = [];
  const started = Date.now();
  let written = 0;
  while (Date.now() - started < 1500) {
    try {
      createTag(ctx.app.db, `tag ${written}`); // reads (is the name taken?), then inserts
      written += 1;
    } catch (error) {
      failures.push(String(error));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.same(failures.slice(0, 3), [], `${written} writes, none refused`);
  t.ok(written > 50);
});
