import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, resolveLogFormat, type Config } from './config.js';
import { earlyLogLine, loggerOptions, openUrl } from './logger.js';

/**
 * The process entry point: loads the configuration (src/config.ts reads the environment), builds
 * the app, listens, and shuts down gracefully on SIGTERM/SIGINT (docs/decisions.md, "Running the
 * service › Stopping"): stop accepting, let in-flight requests finish, close plugins (the
 * database checkpoints its WAL last), exit 0. Logs are pretty lines at a terminal and JSON lines
 * elsewhere (`LOG_FORMAT`); the first line is the address to open.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`storyshelf: configuration error: ${problem}\n`);
      process.exit(1);
    }
    throw error;
  }

  const format = resolveLogFormat(config.logFormat, process.stdout.isTTY === true);
  const logger = await loggerOptions(format, config.logLevel);
  // Before anything else, even a first start's migrations and generated password: where to go.
  // A port the system picks (PORT=0) is only known once listening.
  const announce = (port: number) => `Storyshelf: open ${openUrl(config.host, port)} (data in ${config.dataDir})`;
  const infoShown = config.logLevel === 'info' || config.logLevel === 'debug' || config.logLevel === 'trace';
  if (config.port !== 0 && infoShown) {
    const line = earlyLogLine(announce(config.port));
    if (logger.stream === undefined) process.stdout.write(line);
    else (logger.stream as NodeJS.WritableStream).write(line);
  }

  const app = await buildApp(config, { logger });
  let closing = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const forceExit = setTimeout(() => {
      app.log.error('shutdown took longer than 10 s; exiting anyway');
      process.exit(1);
    }, 10_000);
    forceExit.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  const address = await app.listen({ port: config.port, host: config.host });
  if (config.port === 0) app.log.info(announce((app.server.address() as AddressInfo).port));
  app.log.info(`Storyshelf is serving the API at ${address}/api (data in ${config.dataDir})`);
}

main().catch((error: unknown) => {
  process.stderr.write(`storyshelf: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
