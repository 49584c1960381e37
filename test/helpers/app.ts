import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App, type BuildOptions } from '../../src/app.js';
import { hashPassword, type PasswordHash } from '../../src/auth/password.js';
import { readStoredPassword, secretsDir, type StoredPassword } from '../../src/auth/secrets.js';
import { loadConfig, type Config } from '../../src/config.js';
import { DATABASE_FILE_NAME } from '../../src/db/open.js';
import { migratedLibraryFile } from './migrations.js';

export const TEST_PASSWORD = 'correct horse battery staple';

let testPasswordHash: Promise<PasswordHash> | undefined;

/**
 * The scrypt hash of {@link TEST_PASSWORD}, computed once per test process: hashing it for every
 * app (and verifying it again at login) was two thirds of each app's start-up.
 */
function hashedTestPassword(): Promise<PasswordHash> {
  testPasswordHash ??= hashPassword(TEST_PASSWORD);
  return testPasswordHash;
}

/**
 * Gives a data folder the test password the way a production library holds it: as the stored
 * hash in `secrets/password.json` (src/auth/secrets.ts), with `changedAt` 0 as `APP_PASSWORD`
 * would have. Returns the environment for `loadConfig`: without `APP_PASSWORD` when the folder
 * holds this hash, with it (hashed at start-up, as before) when the test gave one or the folder
 * already holds some other password.
 */
async function passwordEnv(dataDir: string, env: Record<string, string>): Promise<Record<string, string>> {
  if (env.APP_PASSWORD !== undefined) return env;
  const hash = await hashedTestPassword();
  const stored = readStoredPassword(dataDir);
  if (stored === undefined) {
    const file: StoredPassword = { ...hash, changedAt: 0 };
    fs.mkdirSync(secretsDir(dataDir), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(secretsDir(dataDir), 'password.json'), `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    return env;
  }
  return stored.salt === hash.salt && stored.hash === hash.hash ? env : { APP_PASSWORD: TEST_PASSWORD, ...env };
}

export interface TestContext {
  app: App;
  config: Config;
  dataDir: string;
  /** A valid token, issued once per test app by the app's auth service. */
  token: string;
  /** An authenticated request through the real HTTP stack (`app.inject`). */
  request: (options: InjectOptions) => Promise<LightMyRequestResponse>;
  get: (url: string) => Promise<LightMyRequestResponse>;
  post: (url: string, payload?: unknown) => Promise<LightMyRequestResponse>;
  put: (url: string, payload?: unknown) => Promise<LightMyRequestResponse>;
  del: (url: string, payload?: unknown) => Promise<LightMyRequestResponse>;
}

/** A fresh temp data folder, removed when the test ends. */
export function tempDataDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-test-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A fresh temp data folder holding a new, empty library already migrated (a copy of
 * {@link migratedLibraryFile}), so the app built on it has no migration to apply.
 */
async function migratedDataDir(t: Test): Promise<string> {
  const dir = tempDataDir(t);
  fs.copyFileSync(await migratedLibraryFile(), path.join(dir, DATABASE_FILE_NAME));
  return dir;
}

/**
 * Builds the whole app on its own temp data folder (a real SQLite file, a copy of the migrated
 * empty library) with the test password stored, takes a token from its auth service, and closes
 * everything when the test ends. A `DATA_DIR` given in `env` is used as it is, so a test of
 * migrations, restarts or a library it prepared starts the app on exactly that folder.
 * Silent unless given a `logger` (docs/architecture.md, "Ten habits", 10).
 */
export async function buildTestApp(t: Test, env: Record<string, string> = {}, logger: BuildOptions['logger'] = false): Promise<TestContext> {
  const dataDir = env.DATA_DIR ?? (await migratedDataDir(t));
  // No pause between requests to one site: every fixture site is 127.0.0.1 (docs/decisions.md, "Sources").
  const config = loadConfig({ LOG_LEVEL: 'silent', SOURCE_REQUEST_DELAY_MS: '0', ...(await passwordEnv(dataDir, env)), DATA_DIR: dataDir });
  const app = await buildApp(config, { logger });
  t.teardown(() => app.close());

  // Signed by the app's own auth service, as a login would (test/routes/auth.test.ts logs in).
  const token = app.auth.issueToken();

  const request = (options: InjectOptions) => app.inject({ ...options, cookies: { token, ...(options.cookies ?? {}) } });
  const withBody = (method: 'POST' | 'PUT' | 'DELETE') => (url: string, payload?: unknown) =>
    request(payload === undefined ? { method, url } : { method, url, payload: payload as InjectOptions['payload'] });
  return {
    app,
    config,
    dataDir,
    token,
    request,
    get: (url) => request({ method: 'GET', url }),
    post: withBody('POST'),
    put: withBody('PUT'),
    del: withBody('DELETE'),
  };
}
