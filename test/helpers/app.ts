import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App, type BuildOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';

export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestContext {
  app: App;
  config: Config;
  dataDir: string;
  /** A valid token, logged in once per test app. */
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
 * Builds the whole app on its own temp data folder (a real SQLite file), logs in, and closes
 * everything when the test ends (docs/architecture.md, "Ten habits", 10). Silent unless given a
 * `logger`.
 */
export async function buildTestApp(t: Test, env: Record<string, string> = {}, logger: BuildOptions['logger'] = false): Promise<TestContext> {
  const dataDir = env.DATA_DIR ?? tempDataDir(t);
  const config = loadConfig({ APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'silent', ...env, DATA_DIR: dataDir });
  const app = await buildApp(config, { logger });
  t.teardown(() => app.close());

  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`test login failed: ${login.statusCode} ${login.body}`);
  const token = (login.json() as { token: string }).token;

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
