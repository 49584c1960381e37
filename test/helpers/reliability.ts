/**
 * Shared pieces of the reliability suites (test/reliability/): the long/short switch, a seeded
 * random source whose seed is printed so a failure repeats, a small HTTP client for the real
 * server process, and read-only looks at a data folder (database checks, image files, RSS).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Test } from 'tap';
import { multipart, type Part } from './multipart.js';
import type { ServerProcess } from './server-process.js';

/** `npm run test:long` sets this: every suite runs its full size instead of the CI-sized one. */
export const LONG = process.env.STORYSHELF_LONG_TESTS === '1';

/** `short` in the default run, `long` under `npm run test:long`. */
export function sized<T>(short: T, long: T): T {
  return LONG ? long : short;
}

/**
 * The seed of a seeded test: `SEED` from the environment, else a fresh one. Printed both as a
 * TAP comment and on the console, so a failing run can be repeated with `SEED=<n> npx tap <file>`.
 */
export function testSeed(t: Test, label: string): number {
  const fromEnv = process.env.SEED;
  const seed = fromEnv !== undefined && /^\d+$/.test(fromEnv) ? Number(fromEnv) % 2 ** 32 : Math.floor(Math.random() * 2 ** 32);
  const line = `${label}: SEED=${seed}${LONG ? ' (long mode)' : ''}`;
  t.comment(line);
  console.log(`# ${line}`);
  return seed;
}

/** mulberry32: small, fast, and good enough to drive test choices reproducibly. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let x = this.#state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** A few distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i -= 1) {
      const j = this.int(i + 1);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, Math.min(count, copy.length));
  }

  /** Lower-case letters only, so the search tokenizer keeps it as one word. */
  letters(length: number): string {
    let word = '';
    for (let i = 0; i < length; i += 1) word += String.fromCharCode(97 + this.int(26));
    return word;
  }

  /** A random case for each letter: "Ann Lee" -> "aNn LEe". */
  recase(text: string): string {
    return [...text].map((char) => (this.chance(0.5) ? char.toUpperCase() : char.toLowerCase())).join('');
  }

  /** Chooses by weight: `[[weight, value], ...]`. */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [weight, value] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return (choices[choices.length - 1] as readonly [number, T])[1];
  }
}

export interface ApiResponse<T = any> {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body when it was JSON, else `undefined`. */
  body: T;
}

/** A client of the real server process: JSON and multipart requests with the token as a cookie. */
export class ApiClient {
  constructor(
    readonly origin: string,
    readonly token: string,
  ) {}

  async request<T = any>(method: string, url: string, init: { body?: Buffer | string; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> {
    const res = await fetch(`${this.origin}${url}`, {
      method,
      headers: { cookie: `token=${this.token}`, ...(init.headers ?? {}) },
      body: init.body,
    });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let body: any;
    if (contentType.startsWith('application/json')) body = JSON.parse(text);
    return { status: res.status, contentType, text, body };
  }

  json<T = any>(method: string, url: string, payload?: unknown): Promise<ApiResponse<T>> {
    return payload === undefined
      ? this.request<T>(method, url)
      : this.request<T>(method, url, { body: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
  }

  get<T = any>(url: string): Promise<ApiResponse<T>> {
    return this.request<T>('GET', url);
  }

  upload<T = any>(method: string, url: string, parts: Part[]): Promise<ApiResponse<T>> {
    const form = multipart(parts);
    return this.request<T>(method, url, { body: form.payload, headers: form.headers });
  }

  /** Every item of a paginated list (docs/api.md, "Lists and paging"), page by page. */
  async all<T = any>(url: string): Promise<T[]> {
    const items: T[] = [];
    const joiner = url.includes('?') ? '&' : '?';
    for (let page = 0; ; page += 1) {
      const res = await this.get<{ content: T[]; last: boolean }>(`${url}${joiner}size=100&page=${page}`);
      if (res.status !== 200) throw new Error(`GET ${url} page ${page}: ${res.status} ${res.text}`);
      items.push(...res.body.content);
      if (res.body.last) return items;
    }
  }
}

export interface DatabaseReport {
  integrity: string;
  foreignKeyProblems: unknown[];
  stories: number;
  /** Rows of `search_dirty`: the queue every write empties before it commits. */
  pendingSearchChanges: number;
  /** rowids of the story full-text index that are not story seqs, and the reverse. */
  ftsExtra: number[];
  ftsMissing: number[];
  coverPaths: string[];
  avatarPaths: string[];
}

/**
 * Opens the library read-only (the server may be running: WAL lets a reader in) and reports what
 * the reliability suites check: integrity, foreign keys, the search index against the table, and
 * every image path the rows name.
 */
export function inspectDatabase(dataDir: string): DatabaseReport {
  const db = new Database(path.join(dataDir, 'library.db'), { readonly: true, fileMustExist: true });
  try {
    const seqs = new Set(db.prepare('SELECT seq FROM stories').pluck().all() as number[]);
    const fts = new Set(db.prepare('SELECT rowid FROM stories_fts').pluck().all() as number[]);
    return {
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      foreignKeyProblems: db.pragma('foreign_key_check') as unknown[],
      stories: seqs.size,
      pendingSearchChanges: db.prepare('SELECT count(*) FROM search_dirty').pluck().get() as number,
      ftsExtra: [...fts].filter((rowid) => !seqs.has(rowid)),
      ftsMissing: [...seqs].filter((seq) => !fts.has(seq)),
      coverPaths: db.prepare('SELECT DISTINCT cover_path FROM stories WHERE cover_path IS NOT NULL').pluck().all() as string[],
      avatarPaths: db.prepare('SELECT DISTINCT avatar_image_path FROM authors WHERE avatar_image_path IS NOT NULL').pluck().all() as string[],
    };
  } finally {
    db.close();
  }
}

/** The files in `DATA_DIR/images/<folder>`, as `<folder>/<name>`, with their mtimes. */
export function filesIn(dataDir: string, folder: string): Map<string, number> {
  const dir = path.join(dataDir, 'images', folder);
  const files = new Map<string, number>();
  if (!fs.existsSync(dir)) return files;
  for (const name of fs.readdirSync(dir)) {
    const stat = fs.lstatSync(path.join(dir, name));
    if (!stat.isDirectory()) files.set(`${folder}/${name}`, stat.mtimeMs);
  }
  return files;
}

/** VmRSS of a live process in KiB, from /proc (Linux). */
export function rssKiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (match?.[1] === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

/** The pino lines of a server's output at level error (50) or above. */
export function errorLogLines(output: string): string[] {
  return output.split('\n').filter((line) => {
    if (!line.startsWith('{')) return false;
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 50;
    } catch {
      return false;
    }
  });
}

/** Non-JSON output lines (a crash trace would be one). */
export function strayOutputLines(output: string): string[] {
  return output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));
}

/** SIGTERM, then the exit code must be 0 (docs/decisions.md, "Running the service": a graceful stop exits 0 within 10 s). */
export async function stopCleanly(t: Test, server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  const code = await server.exited;
  t.equal(code, 0, 'stops cleanly on SIGTERM (exit 0)');
  if (code !== 0) t.comment(server.output().slice(-4000));
}
