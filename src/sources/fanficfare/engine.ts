/**
 * FanFicFare as an optional engine (docs/decisions.md, "Sources"): with `FANFICFARE_COMMAND`
 * set, an address on a site FanFicFare knows is downloaded by it as an EPUB, which the file
 * import reads and writes (src/import/). Storyshelf then neither resolves nor fetches the
 * address: FanFicFare talks only to the sites it knows. The address never reaches its command
 * line as an option: it must be an absolute http(s) URL, and it follows `--`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FanficfareConfig } from '../../config.js';
import { BOOK_FILE_MAX } from '../../import/formats.js';
import { runCommand, type RunResult } from './command.js';
import { FANFICFARE_SITES, isOnSites, sitesOfList } from './sites.js';

/** `--version` and `--sites-list` answer at once; a FanFicFare that takes longer is taken not to answer. */
const PROBE_TIMEOUT_MS = 20_000;
/** How long a version answer (or its failure) is reused by `/settings`. */
const STATUS_TTL_MS = 60_000;
/** How long the built-in site list stands in after `--sites-list` failed, before it is asked again. */
const SITES_RETRY_MS = 5 * 60_000;

/** What `/settings` and `GET /api/config/sources` show of it. */
export interface FanficfareStatus {
  configured: boolean;
  /** The command as configured (program and fixed arguments), or null. */
  command: string | null;
  answers: boolean;
  /** What `--version` printed (`4.59.9`), or null. */
  version: string | null;
  /** Why it does not answer, or null. */
  error: string | null;
}

/** A download that did not give a book: the message is FanFicFare's own last line, or what stopped it. */
export class FanficfareFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FanficfareFailed';
  }
}

/** The last non-blank line of what it printed, cut to 500 characters (Python prints its traceback last). */
function lastLine(result: RunResult): string {
  const lines = `${result.stderr}\n${result.stdout}`.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const line = lines.findLast((candidate) => !/^(Traceback|File ")/.test(candidate)) ?? `exit code ${result.code}`;
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}

function failureOf(result: RunResult, timeoutMs: number, maxBytes: number): FanficfareFailed | undefined {
  if (result.stopped === 'timeout') return new FanficfareFailed(`FanFicFare took longer than ${timeoutMs / 1000} s and was stopped`);
  if (result.stopped === 'too-large') return new FanficfareFailed(`FanFicFare wrote more than ${maxBytes} bytes and was stopped`);
  if (result.stopped === 'aborted') return new FanficfareFailed('stopped');
  if (result.code !== 0) return new FanficfareFailed(`FanFicFare failed: ${lastLine(result)}`);
  return undefined;
}

export class FanficfareEngine {
  #status: { at: number; value: Promise<FanficfareStatus> } | undefined;
  #sites: { at: number; value: Promise<ReadonlySet<string>>; fallback: boolean } | undefined;
  readonly #builtIn = new Set(FANFICFARE_SITES);

  /** `config` undefined: FanFicFare is off. `workDir` is where the probes run (they write nothing). */
  constructor(
    readonly config: FanficfareConfig | undefined,
    private readonly workDir: string,
  ) {}

  get enabled(): boolean {
    return this.config !== undefined;
  }

  /** Whether FanFicFare 4.59.9 knows the address's site, whether or not it is installed: what "FanFicFare would handle it" says. */
  knowsSite(address: string): boolean {
    return isOnSites(address, this.#builtIn);
  }

  /** Whether this address goes through FanFicFare: it is on and its own site list has the address's site. */
  async handles(address: string): Promise<boolean> {
    if (!this.enabled) return false;
    return isOnSites(address, await this.#siteList());
  }

  /** Its version, and whether it answers (cached for a minute). */
  status(): Promise<FanficfareStatus> {
    const config = this.config;
    if (config === undefined) return Promise.resolve({ configured: false, command: null, answers: false, version: null, error: null });
    if (this.#status === undefined || Date.now() - this.#status.at > STATUS_TTL_MS) {
      const value = this.#probe(['--version']).then(
        (result): FanficfareStatus => {
          const version = /(\d+\.\d+(?:\.\d+)*)/.exec(result.stdout)?.[1] ?? null;
          const failure = failureOf(result, PROBE_TIMEOUT_MS, 0);
          const answers = failure === undefined && version !== null;
          const error = answers ? null : (failure?.message ?? 'FanFicFare answered --version without a version');
          return { configured: true, command: config.command.join(' '), answers, version, error };
        },
        (error: unknown): FanficfareStatus => ({ configured: true, command: config.command.join(' '), answers: false, version: null, error: `FanFicFare could not be started: ${(error as Error).message}` }),
      );
      this.#status = { at: Date.now(), value };
    }
    return this.#status.value;
  }

  /**
   * Downloads the work at `address` as an EPUB into `folder` (created if needed) and returns the
   * book's path. Throws {@link FanficfareFailed} when it fails, is stopped or gives no book.
   */
  async download(address: string, folder: string, signal?: AbortSignal): Promise<string> {
    const config = this.config;
    if (config === undefined) throw new FanficfareFailed('FanFicFare is not configured (FANFICFARE_COMMAND)');
    if (!/^https?:\/\//i.test(address)) throw new FanficfareFailed('only an http(s) address is given to FanFicFare');
    await fs.mkdir(folder, { recursive: true });
    // `--` ends its options: whatever follows is a story URL, never an option. `is_adult` passes a site's adult notice, as the built-in engines do.
    const args = ['--non-interactive', '-f', 'epub', '-o', 'is_adult=true', '--', address];
    const result = await runCommand(config.command, args, { cwd: folder, timeoutMs: config.timeoutMs, maxFolderBytes: BOOK_FILE_MAX, ...(signal === undefined ? {} : { signal }) }).catch(
      (error: unknown) => {
        throw new FanficfareFailed(`FanFicFare could not be started: ${(error as Error).message}`);
      },
    );
    const failure = failureOf(result, config.timeoutMs, BOOK_FILE_MAX);
    if (failure !== undefined) throw failure;
    const books = (await fs.readdir(folder)).filter((name) => name.toLowerCase().endsWith('.epub'));
    if (books.length !== 1) throw new FanficfareFailed(`FanFicFare wrote ${books.length} EPUB files instead of one: ${lastLine(result)}`);
    const book = path.join(folder, books[0] as string);
    if ((await fs.stat(book)).size > BOOK_FILE_MAX) throw new FanficfareFailed(`FanFicFare's EPUB is over ${BOOK_FILE_MAX} bytes`);
    return book;
  }

  #probe(args: string[]): Promise<RunResult> {
    return runCommand(this.config?.command as readonly string[], args, { cwd: this.workDir, timeoutMs: PROBE_TIMEOUT_MS });
  }

  /** Its own `--sites-list`, asked once; the built-in list while it cannot be had (asked again after five minutes). */
  #siteList(): Promise<ReadonlySet<string>> {
    const known = this.#sites;
    if (known !== undefined && (!known.fallback || Date.now() - known.at < SITES_RETRY_MS)) return known.value;
    const entry = { at: Date.now(), fallback: false, value: Promise.resolve(this.#builtIn as ReadonlySet<string>) };
    entry.value = this.#probe(['--sites-list']).then(
      (result) => {
        const sites = result.code === 0 ? sitesOfList(result.stdout) : [];
        if (sites.length > 0) return new Set(sites);
        entry.fallback = true;
        return this.#builtIn;
      },
      () => {
        entry.fallback = true;
        return this.#builtIn;
      },
    );
    this.#sites = entry;
    return entry.value;
  }
}
