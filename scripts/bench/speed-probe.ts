/**
 * How fast this machine is right now at the work a story create does (docs/performance.md,
 * "Creates on a machine that drifts"). The same tree measured 297 creates/s here on one day and
 * 150-164/s six days later, side by side with the tree of that day: an absolute rate cannot tell
 * a slower tree from a slower machine. So, right before the create scenarios, the bench times a
 * fixed unit of a create's kinds of work through the libraries a create uses and none of
 * Storyshelf's code (so no change of ours moves it), and reports each create's server CPU in these
 * units as well as in milliseconds: a change to the create path moves that ratio, the machine's
 * speed does not.
 *
 * One unit, per bench body: parse the JSON request, sanitize the HTML (sanitize-html's defaults),
 * take its text (a second parse), store both in a row and index the text in a contentless FTS5
 * table with the search index's options (prefix index, unicode61 without diacritics), five to a
 * transaction in WAL mode, and serialize the answer. In a fresh database each run, so the index
 * does not grow from run to run; the median of the runs is the figure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import sanitizeHtml from 'sanitize-html';

export interface SpeedProbeResult {
  /** Units per run. */
  units: number;
  /** CPU milliseconds per unit of each run (this process, one thread), in the order run. */
  cpuMsPerUnit: number[];
  /** Wall milliseconds per unit of each run: with the CPU figure, shows time the machine gave to others. */
  wallMsPerUnit: number[];
  /** The median of {@link cpuMsPerUnit}: the figure the report divides by. */
  medianCpuMs: number;
}

const PER_TRANSACTION = 5;
const TEXT_ONLY: sanitizeHtml.IOptions = { allowedTags: [], allowedAttributes: {} };

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * One run of `units` units over `bodies` (JSON create bodies with a `contentHtml`), in a fresh
 * database under `dir`; `word` (of the first body) counts the documents its index answers.
 */
function run(dir: string, bodies: readonly string[], units: number, word: string): { cpu: number; wall: number; indexed: number; answerBytes: number } {
  const file = path.join(dir, `probe-${process.hrtime.bigint()}.db`);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE docs (id INTEGER PRIMARY KEY, html TEXT NOT NULL, text TEXT NOT NULL);
      CREATE VIRTUAL TABLE docs_fts USING fts5(title, body, content='', contentless_delete=1, prefix='3', tokenize='unicode61 remove_diacritics 2');`);
    const insertDoc = db.prepare('INSERT INTO docs (html, text) VALUES (?, ?)');
    const indexDoc = db.prepare('INSERT INTO docs_fts (rowid, title, body) VALUES (?, ?, ?)');
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    let answerBytes = 0;
    const cpu0 = cpuMs();
    const wall0 = performance.now();
    for (let done = 0; done < units; ) {
      begin.run();
      for (let i = 0; i < PER_TRANSACTION && done < units; i += 1, done += 1) {
        const request = JSON.parse(bodies[done % bodies.length]!) as { title?: string; contentHtml: string };
        const html = sanitizeHtml(request.contentHtml);
        const text = sanitizeHtml(html, TEXT_ONLY);
        const id = insertDoc.run(html, text).lastInsertRowid;
        indexDoc.run(id, request.title ?? '', text);
        answerBytes += JSON.stringify({ ...request, id, contentHtml: html, contentPlain: text }).length;
      }
      commit.run();
    }
    const cpu = (cpuMs() - cpu0) / units;
    const wall = (performance.now() - wall0) / units;
    const indexed = db.prepare(`SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'body:' || ?`).pluck().get(word) as number;
    return { cpu, wall, indexed, answerBytes };
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  }
}

/** A word of the first body's text, to check the index was really written. */
function firstWord(body: string): string {
  const text = sanitizeHtml((JSON.parse(body) as { contentHtml: string }).contentHtml, TEXT_ONLY);
  return /[a-z]{4,}/i.exec(text)?.[0]?.toLowerCase() ?? 'the';
}

/**
 * Times `runs` runs of `units` units after one run of warm-up (the JIT and the page cache), and
 * checks that every run's index answers a word of the first body and every run answered.
 */
export function probeSpeed(bodies: readonly string[], { units = 320, runs = 5 }: { units?: number; runs?: number } = {}): SpeedProbeResult {
  if (bodies.length === 0) throw new RangeError('The speed probe needs at least one body');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-probe-'));
  try {
    const word = firstWord(bodies[0]!);
    run(dir, bodies, Math.min(units, 64), word);
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const result = run(dir, bodies, units, word);
      if (result.indexed === 0 || result.answerBytes === 0) throw new Error('The speed probe indexed or answered nothing: its figure would mean nothing');
      cpu.push(result.cpu);
      wall.push(result.wall);
    }
    return { units, cpuMsPerUnit: cpu, wallMsPerUnit: wall, medianCpuMs: median(cpu) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
