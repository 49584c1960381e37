/**
 * FanFicFare's download read by the parser thread (src/sources/fanficfare/job.ts, `downloadParsed`),
 * which the import and the refresh both run: the shared parser thread is taken only once the book
 * is there, so a download (minutes on a real site) never holds it, and a failed one never takes it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parserThreadKept, parserThreadLends } from '../../src/import/parser-pool.js';
import { FanficfareEngine, FanficfareFailed } from '../../src/sources/fanficfare/engine.js';
import { downloadParsed } from '../../src/sources/fanficfare/job.js';

const REPLAY = path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare', 'replay-fanficfare.mjs');

t.test('a failed download never takes the parser thread; a book is parsed on it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fff-download-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const engine = new FanficfareEngine({ command: [process.execPath, REPLAY], timeoutMs: 60_000 }, dir);
  const signal = AbortSignal.timeout(60_000);
  // Other test files may share this process and its parser thread: the lends count what this test did.
  const lendsBefore = parserThreadLends();
  await t.rejects(downloadParsed(engine, 'http://example.org/x', path.join(dir, 'failed'), signal), FanficfareFailed);
  t.equal(parserThreadLends(), lendsBefore, 'the failed download left the parser alone');
  const result = await downloadParsed(engine, 'http://test1.com?sid=1', path.join(dir, 'ok'), signal);
  t.ok('story' in result && result.story.chapters.length === 9, "FanFicFare's book read");
  t.equal(parserThreadLends(), lendsBefore + 1, 'the book was read on the shared thread');
  t.ok(parserThreadKept(), 'which is kept for the next job');
});
