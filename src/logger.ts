import os from 'node:os';
import type { LogLevel } from './config.js';

/** Fields every pino line has; the pretty line shows them in its own way or not at all. */
const STANDARD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/**
 * The logger options `buildApp` takes (docs/decisions.md, "Running the service"): JSON lines,
 * pino's default, or for a person at a terminal one pretty line per entry. pino-pretty runs in
 * this process and writes synchronously, so a line is out before a `process.exit` and in order
 * with anything written to the terminal directly; logs are rare (no per-request lines below
 * `debug`), so its cost does not matter. Loaded only when used.
 */
export async function loggerOptions(format: 'pretty' | 'json', level: LogLevel): Promise<Record<string, unknown>> {
  if (format === 'json') return { level };
  const { default: pretty } = await import('pino-pretty');
  const stream = pretty({
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    hideObject: true,
    messageFormat: (log, messageKey) => prettyMessage(log, messageKey),
  });
  return { level, stream };
}

/**
 * The message, then every other field as `key=value` on the same line: no JSON braces, nested
 * objects flattened to dotted keys, an error as its type and message. So the generated password
 * of a first start reads `generatedPassword=…` at the end of its line.
 */
export function prettyMessage(log: Record<string, unknown>, messageKey = 'msg'): string {
  const parts = [String(log[messageKey] ?? '')];
  for (const [key, value] of Object.entries(log)) {
    if (STANDARD_FIELDS.has(key) || key === messageKey) continue;
    parts.push(...fields(key, value));
  }
  return parts.filter((part) => part !== '').join(' ');
}

function fields(key: string, value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [`${key}=${plain(value)}`];
  if (key === 'err' && 'message' in value) {
    const err = value as { type?: unknown; message?: unknown };
    return [`err=${plain(`${String(err.type ?? 'Error')}: ${String(err.message)}`)}`];
  }
  return Object.entries(value).flatMap(([inner, innerValue]) => fields(`${key}.${inner}`, innerValue));
}

/** Bare when it is one word; otherwise quoted, with quotes and line breaks escaped. */
function plain(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/**
 * A path segment after a `k` segment: the device token of the OPDS path form,
 * `/opds/k/<token>/…` (src/opds/plugin.ts), also when the `k` arrives percent-encoded.
 */
const PATH_TOKEN = /(\/(?:k|%6b)\/)[^/?#]+/gi;

/** The URL with every path-form device token replaced by `[redacted]`: a token in a log is a token anyone with the logs can use. */
export function redactUrl(url: string): string {
  return url.replace(PATH_TOKEN, '$1[redacted]');
}

/** The fields Fastify's own request serializer logs, with the URL redacted (src/app.ts installs it). */
export function serializeRequest(request: {
  method: string;
  url: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Logger options with {@link serializeRequest} as the request serializer; `false` stays off. */
export function withRedactedUrls(logger: boolean | Record<string, unknown>): boolean | Record<string, unknown> {
  if (logger === false) return false;
  const options = logger === true ? {} : logger;
  const serializers = (options.serializers ?? {}) as Record<string, unknown>;
  return { ...options, serializers: { ...serializers, req: serializeRequest } };
}

/**
 * A line in pino's JSON format for the logger's stream, or stdout in JSON mode: what the
 * server prints before the app (and so its logger) exists.
 */
export function earlyLogLine(msg: string): string {
  return `${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, hostname: os.hostname(), msg })}\n`;
}

/**
 * The address a person should open: the one the server is bound to, or for a wildcard bind
 * (`0.0.0.0`, `::`) the machine's first LAN IPv4 address, else its host name.
 */
export function openUrl(
  host: string,
  port: number,
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
  hostname: string = os.hostname(),
): string {
  let name = host;
  if (host === '0.0.0.0' || host === '::' || host === '') {
    const lan = Object.values(interfaces)
      .flat()
      .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal);
    name = lan?.address ?? hostname;
  }
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}/`;
}
