import os from 'node:os';
import path from 'node:path';
import { parseAllowHosts, type ImportAllowList } from './lib/allow-hosts.js';
import { parseTrustedProxies } from './lib/trusted-proxies.js';
import { isMailAddress } from './lib/mail-address.js';

/** Log levels pino understands; anything else is a configuration error. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type CookieSecure = 'auto' | 'true' | 'false';

/** `auto`: pretty lines in a terminal, JSON lines otherwise (systemd's journal, a pipe). */
export type LogFormat = 'auto' | 'pretty' | 'json';

/**
 * How long a whole request (headers and body) may take to arrive: 120 s lets a 5 MiB image
 * upload finish at 0.35 Mbit/s (5 MiB = 41.9 Mbit, 41.9 / 120 = 0.35), below a weak ADSL or
 * mobile uplink, while a client that stops sending mid-body is cut off (docs/decisions.md).
 */
const DEFAULT_REQUEST_TIMEOUT_S = 120;
/** Headers are a few hundred bytes: 30 s is ample on any link, and Node's default is 60 s. */
const DEFAULT_HEADERS_TIMEOUT_S = 30;

/**
 * Search threads by default: two, or one on a one-core machine (docs/decisions.md, "Search
 * worker pool"). Two use both cores of the small machines this runs on while the event loop
 * still has a core's worth of time between searches; more threads than cores only queue inside
 * the kernel instead of in the pool.
 */
const DEFAULT_SEARCH_WORKERS = Math.min(2, os.availableParallelism());
const SEARCH_WORKERS_MAX = 16;
/**
 * Searches that may wait for a thread before one more is answered 503: at ~25 ms for a common
 * word at 100,000 stories on two threads, 64 waiting is ~0.8 s of queue (docs/performance.md,
 * "Search worker pool").
 */
const DEFAULT_SEARCH_QUEUE_MAX = 64;
const SEARCH_QUEUE_MAX_MAX = 10_000;

/**
 * Two seconds between two requests to one site: the Archive of Our Own answers 429 to readers
 * that go faster for long (docs/decisions.md, "Sources").
 */
const DEFAULT_SOURCE_REQUEST_DELAY_MS = 2000;
/** Web serials run to a few thousand chapters; 3,000 takes the long ones, not an endless list. */
const DEFAULT_SOURCE_MAX_CHAPTERS = 3000;
/** A 32 MiB entire-work page at 2.2 Mbit/s; a site slower than that is stopped. */
const DEFAULT_SOURCE_PAGE_TIMEOUT_S = 120;

export interface TypesenseConfig {
  readonly urls: readonly string[];
  readonly apiKey: string;
  readonly collectionPrefix: string;
}

/**
 * The default most bytes of an EPUB sent by mail: 50 MB, the total Amazon's Send to Kindle
 * accepts by e-mail (attachments together; a sent story is one). Many mail providers refuse
 * less (Gmail 25 MB, base64 included, so about 18 MB of EPUB): their refusal is a 413 too.
 */
const DEFAULT_SEND_MAX_MB = 50;
const SEND_MAX_MB_MAX = 100;
/**
 * Seconds each step of talking to the mail server may take (connecting, resolving its name, its
 * greeting, any silence while sending): nodemailer's defaults are 2 minutes to connect and 10 of
 * silence, which would hold a request and a send slot that long for a server that is down.
 */
const DEFAULT_SMTP_TIMEOUT_S = 30;

/** Sending a story's EPUB by mail (docs/decisions.md, "Send to an e-reader"), when `SMTP_URL` is set. */
export interface MailConfig {
  readonly host: string;
  readonly port: number;
  /** `smtps://`: TLS from the first byte; `smtp://`: STARTTLS when the server offers it. */
  readonly secure: boolean;
  /** From the URL's user and password, percent-decoded; undefined: no login. */
  readonly auth: { readonly user: string; readonly pass: string } | undefined;
  /** `SEND_FROM`, else the URL's user when it is an address. */
  readonly from: string;
  /** `SEND_TO`: the recipient when a send names none. */
  readonly defaultTo: string | undefined;
  /** `SEND_MAX_MB` in bytes (decimal megabytes, as mail providers count them). */
  readonly maxBytes: number;
  /** `SMTP_TIMEOUT_SECONDS` in milliseconds. */
  readonly timeoutMs: number;
}

/** `AUTH_PROXY_HEADER` with the `TRUST_PROXY` addresses it is believed from (docs/decisions.md, "Proxy login"). */
export interface AuthProxyConfig {
  /** The header's name, lower-case as Node presents it. */
  readonly header: string;
  /** IP addresses, CIDR ranges and Fastify's preset names (src/lib/trusted-proxies.ts). */
  readonly trusted: readonly string[];
}

/**
 * Headers that mean something else here: the credentials Storyshelf reads itself, the ones its
 * cross-site check and `TRUST_PROXY` read, and framing. A proxy login under one of these names
 * would let a client's own header of that name sign it in, or break the request.
 */
const RESERVED_PROXY_HEADERS = new Set([
  'authorization', 'cookie', 'host', 'origin', 'referer', 'sec-fetch-site', 'forwarded', 'x-forwarded-for',
  'x-forwarded-host', 'x-forwarded-proto', 'x-auth-user', 'x-auth-key', 'content-type', 'content-length',
  'transfer-encoding', 'connection',
]);

/** Every setting of the service, validated once (docs/decisions.md, "Running the service"). */
export interface FanficfareConfig {
  /** The program and its fixed arguments, split at spaces (no shell ever reads it). */
  readonly command: readonly [string, ...string[]];
  /** `FANFICFARE_TIMEOUT_SECONDS`: one run's bound, then it is killed. */
  readonly timeoutMs: number;
}

/** A FanFicFare download of a long work waits for the site's own pacing: ten minutes by default. */
const DEFAULT_FANFICFARE_TIMEOUT_S = 600;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Plain-text password from the environment; `undefined` means "use the stored hash". */
  readonly appPassword: string | undefined;
  /** Signing secret from the environment; `undefined` means "use (or create) the stored one". */
  readonly jwtSecret: string | undefined;
  readonly typesense: TypesenseConfig | undefined;
  readonly cookieSecure: CookieSecure;
  /** Passed to Fastify's `trustProxy` as is. */
  readonly trustProxy: boolean | string | number;
  /** The proxy login, when `AUTH_PROXY_HEADER` is set; `undefined`: the header means nothing. */
  readonly authProxy: AuthProxyConfig | undefined;
  /** Sending EPUBs by mail, when `SMTP_URL` is set; `undefined`: sends answer 503. */
  readonly mail: MailConfig | undefined;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** Time for a whole request to arrive before it is answered 408 and its connection closed. */
  readonly requestTimeoutMs: number;
  /** Time for a request's headers to arrive; never more than `requestTimeoutMs`. */
  readonly headersTimeoutMs: number;
  /** Search worker threads; 0 runs searches on the event loop (`SEARCH_WORKERS`). */
  readonly searchWorkers: number;
  /** Searches that may wait for a search thread; past it, 503 (`SEARCH_QUEUE_MAX`). */
  readonly searchQueueMax: number;
  /** `IMPORT_ALLOW_HOSTS`: private or local hosts a URL import may reach on purpose (empty: none). */
  readonly importAllowHosts: ImportAllowList;
  /** `FANFICFARE_COMMAND`: FanFicFare as an optional engine (docs/decisions.md, "Sources"); undefined: off. */
  readonly fanficfare: FanficfareConfig | undefined;
  /** `NODE_ENV=development`: the pages' templates are read again on every request instead of cached. */
  readonly development: boolean;
  /** `SOURCE_REQUEST_DELAY_MS`: the pause between two requests to one site (docs/decisions.md, "Sources"). */
  readonly sourceRequestDelayMs: number;
  /** `SOURCE_MAX_CHAPTERS`: a work with more chapters is not imported. */
  readonly sourceMaxChapters: number;
  /** `SOURCE_PAGE_TIMEOUT_SECONDS`, in ms: one source page's fetch in all (redirects and body). */
  readonly sourcePageTimeoutMs: number;
  /** `SOURCE_CHECK_INTERVAL_HOURS`: how often a followed, unfinished story is checked; 0 turns the schedule off. */
  readonly sourceCheckIntervalHours: number;
  /** `UPDATE_WEBHOOK_URL` and `UPDATE_WEBHOOK_TOPIC`: where each update from a source is posted; undefined: off. */
  readonly updateWebhook: UpdateWebhookConfig | undefined;
}

/** The update webhook (docs/decisions.md, "Sources › Telling the reader"). */
export interface UpdateWebhookConfig {
  readonly url: URL;
  /** ntfy's topic, sent in every body (Gotify and Home Assistant ignore it). */
  readonly topic: string;
}

/** Thrown when the environment holds a bad value; the message names the variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads and checks every setting at once, so a bad environment is reported in full at startup
 * rather than one variable per restart. Returns a frozen object. `env` is the process's
 * environment unless a test or a script passes its own: nothing else in src/ or the operator
 * scripts reads `process.env` (test/unit/single-owners.test.ts; the bench scripts read only their
 * own `BENCH_*` knobs).
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };

  const port = parsePort(value('PORT') ?? '8080');
  if (port === undefined) problems.push(`PORT must be an integer from 0 to 65535, got "${env.PORT}"`);

  const logLevel = (value('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }

  const logFormat = (value('LOG_FORMAT') ?? 'auto').toLowerCase();
  if (logFormat !== 'auto' && logFormat !== 'pretty' && logFormat !== 'json') {
    problems.push(`LOG_FORMAT must be pretty, json or auto, got "${env.LOG_FORMAT}"`);
  }

  const requestTimeoutS = parseSeconds(value('REQUEST_TIMEOUT_SECONDS') ?? String(DEFAULT_REQUEST_TIMEOUT_S));
  if (requestTimeoutS === undefined) {
    problems.push(`REQUEST_TIMEOUT_SECONDS must be an integer from 1 to 3600, got "${env.REQUEST_TIMEOUT_SECONDS}"`);
  }
  const headersTimeoutS = parseSeconds(value('HEADERS_TIMEOUT_SECONDS') ?? String(Math.min(DEFAULT_HEADERS_TIMEOUT_S, requestTimeoutS ?? DEFAULT_HEADERS_TIMEOUT_S)));
  if (headersTimeoutS === undefined) {
    problems.push(`HEADERS_TIMEOUT_SECONDS must be an integer from 1 to 3600, got "${env.HEADERS_TIMEOUT_SECONDS}"`);
  } else if (requestTimeoutS !== undefined && headersTimeoutS > requestTimeoutS) {
    // Node refuses a headers timeout longer than the request timeout that contains it.
    problems.push(`HEADERS_TIMEOUT_SECONDS (${headersTimeoutS}) must not exceed REQUEST_TIMEOUT_SECONDS (${requestTimeoutS})`);
  }

  const cookieSecure = (value('COOKIE_SECURE') ?? 'auto').toLowerCase();
  if (cookieSecure !== 'auto' && cookieSecure !== 'true' && cookieSecure !== 'false') {
    problems.push(`COOKIE_SECURE must be true, false or auto, got "${env.COOKIE_SECURE}"`);
  }

  const jwtSecret = value('JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters long');
  }

  const appPassword = env.APP_PASSWORD === undefined || env.APP_PASSWORD === '' ? undefined : env.APP_PASSWORD;

  const typesense = parseTypesense(value, problems);

  const searchWorkers = parseCount(value('SEARCH_WORKERS') ?? String(DEFAULT_SEARCH_WORKERS), SEARCH_WORKERS_MAX);
  if (searchWorkers === undefined) problems.push(`SEARCH_WORKERS must be an integer from 0 to ${SEARCH_WORKERS_MAX}, got "${env.SEARCH_WORKERS}"`);
  const searchQueueMax = parseCount(value('SEARCH_QUEUE_MAX') ?? String(DEFAULT_SEARCH_QUEUE_MAX), SEARCH_QUEUE_MAX_MAX);
  if (searchQueueMax === undefined) problems.push(`SEARCH_QUEUE_MAX must be an integer from 0 to ${SEARCH_QUEUE_MAX_MAX}, got "${env.SEARCH_QUEUE_MAX}"`);
  const importAllow = parseAllowHosts(value('IMPORT_ALLOW_HOSTS'));
  problems.push(...importAllow.problems);
  const fanficfareCommand = value('FANFICFARE_COMMAND')?.split(/\s+/);
  const fanficfareTimeoutS = parseSeconds(value('FANFICFARE_TIMEOUT_SECONDS') ?? String(DEFAULT_FANFICFARE_TIMEOUT_S));
  if (fanficfareTimeoutS === undefined) {
    problems.push(`FANFICFARE_TIMEOUT_SECONDS must be an integer from 1 to 3600, got "${env.FANFICFARE_TIMEOUT_SECONDS}"`);
  }
  const trustProxy = parseTrustProxy(value('TRUST_PROXY') ?? 'false');
  const authProxy = parseAuthProxy(value('AUTH_PROXY_HEADER'), trustProxy, problems);
  const mail = parseMail(value, problems);

  const sourceRequestDelayMs = parseRange(value('SOURCE_REQUEST_DELAY_MS') ?? String(DEFAULT_SOURCE_REQUEST_DELAY_MS), 0, 600_000);
  if (sourceRequestDelayMs === undefined) problems.push(`SOURCE_REQUEST_DELAY_MS must be an integer from 0 to 600000, got "${env.SOURCE_REQUEST_DELAY_MS}"`);
  const sourceMaxChapters = parseRange(value('SOURCE_MAX_CHAPTERS') ?? String(DEFAULT_SOURCE_MAX_CHAPTERS), 1, 100_000);
  if (sourceMaxChapters === undefined) problems.push(`SOURCE_MAX_CHAPTERS must be an integer from 1 to 100000, got "${env.SOURCE_MAX_CHAPTERS}"`);
  const sourcePageTimeoutS = parseSeconds(value('SOURCE_PAGE_TIMEOUT_SECONDS') ?? String(DEFAULT_SOURCE_PAGE_TIMEOUT_S));
  if (sourcePageTimeoutS === undefined) problems.push(`SOURCE_PAGE_TIMEOUT_SECONDS must be an integer from 1 to 3600, got "${env.SOURCE_PAGE_TIMEOUT_SECONDS}"`);

  const sourceCheckIntervalHours = parseRange(value('SOURCE_CHECK_INTERVAL_HOURS') ?? '24', 0, 8760);
  if (sourceCheckIntervalHours === undefined) problems.push(`SOURCE_CHECK_INTERVAL_HOURS must be an integer from 0 (off) to 8760, got "${env.SOURCE_CHECK_INTERVAL_HOURS}"`);

  const updateWebhook = parseUpdateWebhook(value, problems);

  if (problems.length > 0) throw new ConfigError(problems);

  return Object.freeze({
    port: port as number,
    host: value('HOST') ?? '0.0.0.0',
    dataDir: path.resolve(value('DATA_DIR') ?? './data'),
    appPassword,
    jwtSecret,
    typesense,
    cookieSecure: cookieSecure as CookieSecure,
    trustProxy,
    authProxy,
    mail,
    logLevel: logLevel as LogLevel,
    logFormat: logFormat as LogFormat,
    requestTimeoutMs: (requestTimeoutS as number) * 1000,
    headersTimeoutMs: (headersTimeoutS as number) * 1000,
    searchWorkers: searchWorkers as number,
    searchQueueMax: searchQueueMax as number,
    importAllowHosts: importAllow.allow,
    fanficfare:
      fanficfareCommand === undefined ? undefined : Object.freeze({ command: fanficfareCommand as [string, ...string[]], timeoutMs: (fanficfareTimeoutS as number) * 1000 }),
    development: value('NODE_ENV') === 'development',
    sourceRequestDelayMs: sourceRequestDelayMs as number,
    sourceMaxChapters: sourceMaxChapters as number,
    sourcePageTimeoutMs: (sourcePageTimeoutS as number) * 1000,
    sourceCheckIntervalHours: sourceCheckIntervalHours as number,
    updateWebhook,
  });
}

/** An absolute http(s) URL (its query may hold a Gotify token, its user a ntfy login), and a topic ntfy accepts. */
function parseUpdateWebhook(value: (name: string) => string | undefined, problems: string[]): UpdateWebhookConfig | undefined {
  const raw = value('UPDATE_WEBHOOK_URL');
  const topic = value('UPDATE_WEBHOOK_TOPIC') ?? 'storyshelf';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(topic)) problems.push('UPDATE_WEBHOOK_TOPIC must be 1 to 64 letters, digits, _ or -');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push('UPDATE_WEBHOOK_URL must be an absolute http or https URL');
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`UPDATE_WEBHOOK_URL must be an http or https URL, got a ${url.protocol} one`);
    return undefined;
  }
  return Object.freeze({ url, topic });
}

/** A whole number from `min` to `max`. */
function parseRange(raw: string, min: number, max: number): number | undefined {
  if (!/^\d{1,9}$/.test(raw)) return undefined;
  const number = Number(raw);
  return number >= min && number <= max ? number : undefined;
}

/** A whole number from 0 to `max`. */
function parseCount(raw: string, max: number): number | undefined {
  if (!/^\d{1,5}$/.test(raw)) return undefined;
  const count = Number(raw);
  return count <= max ? count : undefined;
}

function parsePort(raw: string): number | undefined {
  if (!/^\d{1,5}$/.test(raw)) return undefined;
  const port = Number(raw);
  return port <= 65535 ? port : undefined;
}

/** Whole seconds from 1 to an hour; 0 ("never") is what left slow clients holding sockets. */
function parseSeconds(raw: string): number | undefined {
  if (!/^\d{1,4}$/.test(raw)) return undefined;
  const seconds = Number(raw);
  return seconds >= 1 && seconds <= 3600 ? seconds : undefined;
}

/**
 * The log format actually used: `auto` means pretty lines for a person at a terminal and JSON
 * lines for everything else (systemd's journal, a pipe, a log shipper).
 */
export function resolveLogFormat(format: LogFormat, stdoutIsTTY: boolean): 'pretty' | 'json' {
  if (format === 'auto') return stdoutIsTTY ? 'pretty' : 'json';
  return format;
}

/** `true`/`false`, a hop count, or an address list, as Fastify's `trustProxy` takes them. */
function parseTrustProxy(raw: string): boolean | string | number {
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/**
 * `AUTH_PROXY_HEADER`: a header name (an HTTP token, not one Storyshelf reads for something else)
 * that is believed only from the addresses `TRUST_PROXY` lists. `TRUST_PROXY` must then be such a
 * list: `true` trusts every peer and a hop count names none, so either would let any client that
 * reaches the port sign itself in by sending the header.
 */
function parseAuthProxy(raw: string | undefined, trustProxy: boolean | string | number, problems: string[]): AuthProxyConfig | undefined {
  if (raw === undefined) return undefined;
  const header = raw.toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]{1,100}$/.test(header)) problems.push(`AUTH_PROXY_HEADER must be a header name such as Remote-User, got "${raw}"`);
  else if (RESERVED_PROXY_HEADERS.has(header)) problems.push(`AUTH_PROXY_HEADER cannot be ${raw}: Storyshelf reads that header for something else`);
  if (typeof trustProxy !== 'string') {
    problems.push(
      trustProxy === false
        ? 'AUTH_PROXY_HEADER needs TRUST_PROXY: the addresses of the proxy that sets the header'
        : `AUTH_PROXY_HEADER needs TRUST_PROXY to list the proxy's addresses, not ${String(trustProxy)}: that would believe the header from any client`,
    );
    return undefined;
  }
  const trusted = parseTrustedProxies(trustProxy);
  for (const problem of trusted.problems) problems.push(`TRUST_PROXY must list addresses with AUTH_PROXY_HEADER: ${problem}`);
  if (trusted.entries.length === 0 && trusted.problems.length === 0) problems.push('TRUST_PROXY must list at least one address with AUTH_PROXY_HEADER');
  return Object.freeze({ header, trusted: Object.freeze(trusted.entries) });
}

/**
 * `SMTP_URL` (`smtp://` or `smtps://`, user and password in the URL, percent-encoded) with
 * `SEND_FROM`, `SEND_TO`, `SEND_MAX_MB` and `SMTP_TIMEOUT_SECONDS`. The mail settings without
 * `SMTP_URL` are an error rather than silently unused.
 */
function parseMail(value: (name: string) => string | undefined, problems: string[]): MailConfig | undefined {
  const raw = value('SMTP_URL');
  const from = value('SEND_FROM');
  const to = value('SEND_TO');
  const maxMb = parseCount(value('SEND_MAX_MB') ?? String(DEFAULT_SEND_MAX_MB), SEND_MAX_MB_MAX);
  if (maxMb === undefined || maxMb < 1) problems.push(`SEND_MAX_MB must be an integer from 1 to ${SEND_MAX_MB_MAX}`);
  const timeoutS = parseSeconds(value('SMTP_TIMEOUT_SECONDS') ?? String(DEFAULT_SMTP_TIMEOUT_S));
  if (timeoutS === undefined) problems.push('SMTP_TIMEOUT_SECONDS must be an integer from 1 to 3600');
  if (to !== undefined && !isMailAddress(to)) problems.push('SEND_TO must be one e-mail address');
  if (from !== undefined && !isMailAddress(from)) problems.push('SEND_FROM must be one e-mail address');
  if (raw === undefined) {
    if (from !== undefined || to !== undefined) problems.push('SEND_FROM and SEND_TO need SMTP_URL, the mail server to send through');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Never echoed: the URL holds the password.
    problems.push('SMTP_URL must be a URL such as smtps://user:password@smtp.example.com');
    return undefined;
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') problems.push(`SMTP_URL must start with smtp:// or smtps://, not ${url.protocol}//`);
  if (url.hostname === '') problems.push('SMTP_URL must name the mail server');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') problems.push('SMTP_URL takes no path, query or fragment');
  const secure = url.protocol === 'smtps:';
  let user: string;
  let pass: string;
  try {
    user = decodeURIComponent(url.username);
    pass = decodeURIComponent(url.password);
  } catch {
    problems.push('SMTP_URL has a malformed percent-encoding in its user or password');
    return undefined;
  }
  const sender = from ?? (isMailAddress(user) ? user : undefined);
  if (sender === undefined) problems.push('SEND_FROM is required when the SMTP_URL user is not an e-mail address');
  return Object.freeze({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    auth: user === '' ? undefined : Object.freeze({ user, pass }),
    from: sender ?? '',
    defaultTo: to,
    maxBytes: (maxMb ?? DEFAULT_SEND_MAX_MB) * 1_000_000,
    timeoutMs: (timeoutS ?? DEFAULT_SMTP_TIMEOUT_S) * 1000,
  });
}

function parseTypesense(value: (name: string) => string | undefined, problems: string[]): TypesenseConfig | undefined {
  const rawUrls = value('TYPESENSE_URL');
  const apiKey = value('TYPESENSE_API_KEY');
  if (rawUrls === undefined) {
    if (apiKey !== undefined) problems.push('TYPESENSE_API_KEY is set but TYPESENSE_URL is not');
    return undefined;
  }
  const urls = rawUrls.split(',').map((url) => url.trim()).filter((url) => url !== '');
  for (const url of urls) {
    if (!isHttpUrl(url)) problems.push(`TYPESENSE_URL must list http(s) URLs, got "${url}"`);
  }
  if (urls.length === 0) problems.push('TYPESENSE_URL must list at least one URL');
  if (apiKey === undefined) problems.push('TYPESENSE_API_KEY is required when TYPESENSE_URL is set');
  const collectionPrefix = value('TYPESENSE_COLLECTION_PREFIX') ?? 'storyshelf';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(collectionPrefix)) {
    problems.push('TYPESENSE_COLLECTION_PREFIX must be 1-64 letters, digits, "_" or "-"');
  }
  return Object.freeze({ urls: Object.freeze(urls), apiKey: apiKey ?? '', collectionPrefix });
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
