/**
 * Running the FanFicFare command (docs/decisions.md, "Sources"): spawned without a shell, its
 * arguments an array, in a folder of its own; bounded in time (killed with its process group
 * when the time is up or the caller gives up), in what it prints (the first 64 KiB of each
 * stream kept, the rest read and dropped) and in what it writes to its folder (checked four times a
 * second, killed past the bound).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

/** What is kept of each of its output streams: enough for its version, its site list and an error. */
export const OUTPUT_KEPT_BYTES = 64 * 1024;
/** How often its folder's size is looked at while it runs. */
const FOLDER_CHECK_MS = 250;

export interface RunOptions {
  /** The folder it runs in (and writes to). */
  cwd: string;
  timeoutMs: number;
  /** What its folder may hold at most; undefined: not watched. */
  maxFolderBytes?: number;
  signal?: AbortSignal;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why it was stopped, when it was: `timeout`, `too-large` or `aborted`. */
  stopped?: 'timeout' | 'too-large' | 'aborted';
}

/** Keeps the first {@link OUTPUT_KEPT_BYTES} of a stream. */
class Kept {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  add(chunk: Buffer): void {
    if (this.#bytes >= OUTPUT_KEPT_BYTES) return;
    const part = chunk.subarray(0, OUTPUT_KEPT_BYTES - this.#bytes);
    this.#chunks.push(part);
    this.#bytes += part.length;
  }
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(folder, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) total += (await fs.stat(path.join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** Runs `command` (program first) with `args` appended; never rejects for the program's own failure: the result says it. */
export function runCommand(command: readonly string[], args: readonly string[], options: RunOptions): Promise<RunResult> {
  const [program, ...fixed] = command as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(program, [...fixed, ...args], {
      cwd: options.cwd,
      shell: false,
      // Its own process group, so a kill reaches whatever it started.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = new Kept();
    const stderr = new Kept();
    let stopped: RunResult['stopped'];
    const stop = (why: NonNullable<RunResult['stopped']>) => {
      stopped ??= why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const watch =
      options.maxFolderBytes === undefined
        ? undefined
        : setInterval(() => {
            void folderBytes(options.cwd).then((bytes) => {
              if (bytes > (options.maxFolderBytes as number)) stop('too-large');
            });
          }, FOLDER_CHECK_MS);
    child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
    const done = () => {
      clearTimeout(timer);
      if (watch !== undefined) clearInterval(watch);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      done();
      reject(error);
    });
    child.once('close', (code) => {
      done();
      resolve({ code, stdout: stdout.text(), stderr: stderr.text(), ...(stopped === undefined ? {} : { stopped }) });
    });
    if (options.signal?.aborted) stop('aborted');
  });
}
