import path from 'node:path';

/** Log levels pino understands; anything else is a configuration error. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type CookieSecure = 'auto' | 'true' | 'false';

export interface TypesenseConfig {
  readonly urls: readonly string[];
  readonly apiKey: string;
  readonly collectionPrefix: string;
}

/** Every setting of the service, validated once (docs/decisions.md, "Running the service"). */
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
  readonly logLevel: LogLevel;
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
 * rather than one variable per restart. Returns a frozen object; nothing else reads `process.env`.
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

  if (problems.length > 0) throw new ConfigError(problems);

  return Object.freeze({
    port: port as number,
    host: value('HOST') ?? '0.0.0.0',
    dataDir: path.resolve(value('DATA_DIR') ?? './data'),
    appPassword,
    jwtSecret,
    typesense,
    cookieSecure: cookieSecure as CookieSecure,
    trustProxy: parseTrustProxy(value('TRUST_PROXY') ?? 'false'),
    logLevel: logLevel as LogLevel,
  });
}

function parsePort(raw: string): number | undefined {
  if (!/^\d{1,5}$/.test(raw)) return undefined;
  const port = Number(raw);
  return port <= 65535 ? port : undefined;
}

/** `true`/`false`, a hop count, or an address list, as Fastify's `trustProxy` takes them. */
function parseTrustProxy(raw: string): boolean | string | number {
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
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
