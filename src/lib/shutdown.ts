import type { FastifyInstance } from 'fastify';

/**
 * Lets a graceful close finish while keep-alive clients are connected (decisions.md "Running the
 * service": on SIGTERM, finish in-flight requests and exit 0). Node's `server.close()` closes only
 * the connections idle at that moment; a keep-alive connection whose request was still in flight
 * stays open after its answer until the client drops it or `keepAliveTimeout` (72 s in Fastify)
 * passes, so `app.close()` waited for it and the server's 10 s guard ended the process with
 * exit 1. While the app closes, this closes each connection as soon as it falls idle.
 */
export function closeConnectionsAsTheyIdle(app: FastifyInstance, everyMs = 25): void {
  app.addHook('preClose', (done) => {
    const server = app.server;
    if (!server.listening) {
      done();
      return;
    }
    const reaper = setInterval(() => server.closeIdleConnections(), everyMs);
    reaper.unref();
    server.once('close', () => clearInterval(reaper));
    done();
  });
}
