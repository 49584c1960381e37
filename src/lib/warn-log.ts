/**
 * The one logger method the image store and its helpers call: a Fastify (pino) logger fits, and
 * so does a test's recorder. Its own file so the store's helpers need not import the store for it.
 */
export interface WarnLog {
  warn(details: object, message: string): void;
}
