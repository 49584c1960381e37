import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig, resolveLogFormat } from '../../src/config.js';

t.test('defaults', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 8080);
  t.equal(config.host, '0.0.0.0');
  t.equal(config.dataDir, path.resolve('./data'));
  t.equal(config.appPassword, undefined);
  t.equal(config.typesense, undefined);
  t.equal(config.cookieSecure, 'auto');
  t.equal(config.trustProxy, false);
  t.equal(config.logLevel, 'info');
  t.equal(config.logFormat, 'auto');
  t.equal(config.requestTimeoutMs, 120_000, 'a 5 MiB upload at 0.35 Mbit/s still arrives');
  t.equal(config.headersTimeoutMs, 30_000);
  t.ok(Object.isFrozen(config));
});

t.test('every bad value is reported at once, naming its variable', async (t) => {
  try {
    loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', COOKIE_SECURE: 'maybe', JWT_SECRET: 'short', TYPESENSE_URL: 'ftp://x' });
    t.fail('should throw');
  } catch (error) {
    t.ok(error instanceof ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'LOG_LEVEL', 'COOKIE_SECURE', 'JWT_SECRET', 'TYPESENSE_URL', 'TYPESENSE_API_KEY']) t.match(problems, name);
  }
  t.throws(() => loadConfig({ PORT: '70000' }), ConfigError);
  t.throws(() => loadConfig({ TYPESENSE_API_KEY: 'k' }), ConfigError, 'a key without a URL');
});

t.test('typesense cluster and proxy settings', async (t) => {
  const config = loadConfig({ TYPESENSE_URL: 'http://a:8108, https://b:443', TYPESENSE_API_KEY: 'key', TRUST_PROXY: '1' });
  t.same(config.typesense?.urls, ['http://a:8108', 'https://b:443']);
  t.equal(config.typesense?.collectionPrefix, 'storyshelf');
  t.equal(config.trustProxy, 1);
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  t.equal(loadConfig({ TRUST_PROXY: '127.0.0.1,10.0.0.0/8' }).trustProxy, '127.0.0.1,10.0.0.0/8');
});

t.test('request and header timeouts', async (t) => {
  const config = loadConfig({ REQUEST_TIMEOUT_SECONDS: '300', HEADERS_TIMEOUT_SECONDS: '10' });
  t.equal(config.requestTimeoutMs, 300_000);
  t.equal(config.headersTimeoutMs, 10_000);
  t.equal(loadConfig({ REQUEST_TIMEOUT_SECONDS: '5' }).headersTimeoutMs, 5_000, 'the headers default never exceeds a shorter request timeout');
  for (const bad of ['0', '-1', '1.5', '3601', 'soon']) {
    t.throws(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: bad }), /REQUEST_TIMEOUT_SECONDS/, `REQUEST_TIMEOUT_SECONDS=${bad}`);
    t.throws(() => loadConfig({ HEADERS_TIMEOUT_SECONDS: bad }), /HEADERS_TIMEOUT_SECONDS/, `HEADERS_TIMEOUT_SECONDS=${bad}`);
  }
  t.throws(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '10', HEADERS_TIMEOUT_SECONDS: '20' }), /must not exceed/, 'Node refuses headers longer than the request');
});

t.test('log format: pretty at a terminal, JSON elsewhere, unless LOG_FORMAT says', async (t) => {
  t.equal(resolveLogFormat(loadConfig({}).logFormat, true), 'pretty');
  t.equal(resolveLogFormat(loadConfig({}).logFormat, false), 'json', 'under systemd stdout is no terminal');
  t.equal(resolveLogFormat(loadConfig({ LOG_FORMAT: 'JSON' }).logFormat, true), 'json');
  t.equal(resolveLogFormat(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, false), 'pretty');
  t.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), /LOG_FORMAT/);
});

t.test('search threads and their queue', async (t) => {
  const defaults = loadConfig({});
  t.equal(defaults.searchWorkers, Math.min(2, os.availableParallelism()), 'two, or one on a one-core machine');
  t.equal(defaults.searchQueueMax, 64);
  const set = loadConfig({ SEARCH_WORKERS: '0', SEARCH_QUEUE_MAX: '0' });
  t.equal(set.searchWorkers, 0, '0 searches in process');
  t.equal(set.searchQueueMax, 0);
  for (const env of [{ SEARCH_WORKERS: '17' }, { SEARCH_WORKERS: '-1' }, { SEARCH_WORKERS: 'two' }, { SEARCH_QUEUE_MAX: '10001' }, { SEARCH_QUEUE_MAX: '1.5' }]) {
    const problems = (() => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    })();
    t.match(problems, [new RegExp(Object.keys(env)[0] as string)], `refused: ${JSON.stringify(env)}`);
  }
});

t.test('sources: the pause between requests to a site, the chapter bound, the page time', async (t) => {
  const defaults = loadConfig({});
  t.equal(defaults.sourceRequestDelayMs, 2000, 'two seconds: the Archive of Our Own asks for no more');
  t.equal(defaults.sourceMaxChapters, 3000);
  t.equal(defaults.sourcePageTimeoutMs, 120_000);
  t.equal(defaults.sourceCheckIntervalHours, 24);
  t.equal(loadConfig({ SOURCE_CHECK_INTERVAL_HOURS: '0' }).sourceCheckIntervalHours, 0, '0 turns the schedule off');
  t.throws(() => loadConfig({ SOURCE_CHECK_INTERVAL_HOURS: '-2' }), /SOURCE_CHECK_INTERVAL_HOURS/);
  const set = loadConfig({ SOURCE_REQUEST_DELAY_MS: '0', SOURCE_MAX_CHAPTERS: '10', SOURCE_PAGE_TIMEOUT_SECONDS: '5' });
  t.same([set.sourceRequestDelayMs, set.sourceMaxChapters, set.sourcePageTimeoutMs], [0, 10, 5000]);
  for (const env of [{ SOURCE_REQUEST_DELAY_MS: '-1' }, { SOURCE_REQUEST_DELAY_MS: '600001' }, { SOURCE_MAX_CHAPTERS: '0' }, { SOURCE_MAX_CHAPTERS: 'many' }, { SOURCE_PAGE_TIMEOUT_SECONDS: '0' }]) {
    t.throws(() => loadConfig(env), new RegExp(Object.keys(env)[0] as string), `refused: ${JSON.stringify(env)}`);
  }
});
