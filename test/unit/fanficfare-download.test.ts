/**
 * FanFicFare's download read by the parser thread (src/sources/fanficfare/job.ts, `downloadParsed`),
 * which the import and the refresh both run: the shared parser thread is taken only once the book
 * is there, so a download (minutes on a real site) never holds it, and a failed one never takes it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parserThreadKept } from '../../src/import/parser-pool.js';
import { FanficfareEngine, FanficfareFailed } from '../../src/sources/fanficfare/engine.js';
import { downloadParsed } from '../../src/sources/fanficfare/job.js';

const REPLAY = path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare', 'replay-fanficfare.mjs');

t.test('a failed download never takes the parser thread; a book is parsed on it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fff-download-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const engine = new FanficfareEngine({ command: [process.execPath, REPLAY], timeoutMs: 60_000 }, dir);
  const signal = AbortSignal.timeout(60_000);
  t.notOk(parserThreadKept(), 'nothing has parsed in this process yet');
  await t.rejects(downloadParsed(engine, 'http://example.org/x', path.join(dir, 'failed'), signal), FanficfareFailed);
  t.notOk(parserThreadKept(), 'the failed download left the parser alone');
  const result = await downloadParsed(engine, 'http://test1.com?sid=1', path.join(dir, 'ok'), signal);
  t.ok('story' in result && result.story.chapters.length === 9, "FanFicFare's book read");
  t.ok(parserThreadKept(), 'the book was read on the shared thread');
});
