import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';

/**
 * The process entry point: reads the environment, builds the app, listens, and shuts down
 * gracefully on SIGTERM/SIGINT (docs/decisions.md, "Running the service › Stopping"): stop
 * accepting, let in-flight requests finish, close plugins (the database checkpoints its WAL
 * last), exit 0.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`storyshelf: configuration error: ${problem}\n`);
      process.exit(1);
    }
    throw error;
  }

  const app = await buildApp(config);
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
  app.log.info(`Storyshelf is serving the API at ${address}/api (data in ${config.dataDir})`);
}

main().catch((error: unknown) => {
  process.stderr.write(`storyshelf: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
