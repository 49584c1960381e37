import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ServiceUnavailable } from '../errors.js';

/** Node's ServerResponse of the request a connection is serving, when it has one (internal, long stable). */
type ServedSocket = Socket & { _httpMessage?: unknown };

/**
 * Lets a graceful close finish while clients hold connections open (docs/decisions.md, "Running the
 * service": on SIGTERM, finish in-flight requests and exit 0). Node's `server.close()` closes only
 * the keep-alive connections idle at that moment, so `app.close()` waited, and the server's 10 s
 * guard ended the process with exit 1, for:
 * - a keep-alive connection whose request was in flight at the signal: after its answer it stayed
 *   open until the client dropped it or `keepAliveTimeout` (72 s) passed;
 * - a connection that never sent a request (a client's spare or speculative connection: the
 *   backup test's fetch left 120 such) or only part of one (headers still arriving): Node counts
 *   neither as idle, and only its 60 s headers timeout would end them.
 * While the app closes, this closes every connection that is not serving a request, as soon as it
 * is in that state: a request whose headers have arrived is answered first, never cut off.
 */
export function closeConnectionsAsTheyIdle(app: FastifyInstance, everyMs = 25): void {
  const sockets = new Set<ServedSocket>();
  app.server.on('connection', (socket: ServedSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', (done) => {
    const server = app.server;
    if (!server.listening) {
      done();
      return;
    }
    const reap = () => {
      server.closeIdleConnections();
      for (const socket of sockets) if (socket._httpMessage === undefined || socket._httpMessage === null) socket.destroy();
    };
    reap();
    const reaper = setInterval(reap, everyMs);
    reaper.unref();
    server.once('close', () => clearInterval(reaper));
    done();
  });
}

/**
 * While the app closes, a request that still arrives (pipelined behind one in flight, or on a
 * keep-alive connection that is busy) is answered 503 in the service's own error shape, through
 * the one error handler, instead of Fastify's built-in `{error, message, statusCode}` body (the
 * app turns `return503OnClosing` off for this). Fastify itself adds `Connection: close`.
 */
export function refuseRequestsWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    done(closing ? new ServiceUnavailable('The service is shutting down; try again shortly') : undefined);
  });
}
