import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export type ErrorDetails = Record<string, string>;

/** An error meant for the client: its status, message and per-field details are sent as is. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequest extends HttpError {
  constructor(message: string, details?: ErrorDetails) {
    super(400, message, details);
  }
}

/** Shorthand for the common "one field is wrong" validation failure. */
export function invalidField(field: string, message: string): BadRequest {
  return new BadRequest('Validation failed', { [field]: message });
}

export class Unauthorized extends HttpError {
  constructor(message = 'Authentication required') {
    super(401, message);
  }
}

export class Forbidden extends HttpError {
  constructor(message: string, details?: ErrorDetails) {
    super(403, message, details);
  }
}

export class NotFound extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}

export class Conflict extends HttpError {
  constructor(message: string, details?: ErrorDetails) {
    super(409, message, details);
  }
}

export class TooLarge extends HttpError {
  constructor(message: string, details?: ErrorDetails) {
    super(413, message, details);
  }
}

export class UnsupportedType extends HttpError {
  constructor(message: string, details?: ErrorDetails) {
    super(415, message, details);
  }
}

export class TooManyRequests extends HttpError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}

export class ServiceUnavailable extends HttpError {
  constructor(message: string, details?: ErrorDetails) {
    super(503, message, details);
  }
}

export interface ErrorBody {
  error: string;
  details?: ErrorDetails;
  requestId?: string;
}

/** Fastify's own error codes that have a fixed client-facing meaning. */
const FASTIFY_CODES: Record<string, { status: number; message: string; details?: ErrorDetails }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Invalid Content-Length' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'The request body is empty; JSON was expected' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'Malformed JSON in the request body' },
  FST_ERR_CTP_INSTANCE_ALREADY_STARTED: { status: 500, message: 'Internal server error' },
  FST_ERR_INVALID_URL: { status: 400, message: 'Invalid URL' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, message: 'The uploaded file is too large' },
  FST_PARTS_LIMIT: { status: 413, message: 'Too many parts in the multipart body' },
  FST_FILES_LIMIT: { status: 413, message: 'Too many files in the multipart body' },
  FST_FIELDS_LIMIT: { status: 413, message: 'Too many fields in the multipart body' },
  FST_PROTO_VIOLATION: { status: 400, message: 'Prototype pollution attempt in the request' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, message: 'A multipart/form-data body was expected' },
  FST_ERR_MULTIPART_CONTENT_TYPE: { status: 415, message: 'A multipart/form-data body was expected' },
  // @fastify/multipart answers 406 and does not say which part; a malformed body is the client's 400.
  FST_INVALID_JSON_FIELD_ERROR: {
    status: 400,
    message: 'Validation failed',
    details: { body: 'a multipart part declared application/json is not valid JSON' },
  },
  FST_ERR_JWT_NO_AUTHORIZATION_IN_COOKIE: { status: 401, message: 'Authentication required' },
};

/** The message of a URL field holding anything but an http(s) URL (docs/decisions.md, "Validation"). */
export const HTTP_URL_RULE = 'must be an http or https URL';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * Turns Ajv's errors into `details`: one human-readable message per offending top-level field
 * (body property, query or path parameter), as docs/decisions.md, "Shapes and values" asks.
 */
export function validationDetails(issues: readonly ValidationIssue[]): ErrorDetails {
  const details: ErrorDetails = {};
  for (const issue of issues) {
    const segments = issue.instancePath.split('/').filter((segment) => segment !== '');
    let field = segments[0];
    if (field === undefined && typeof issue.params.missingProperty === 'string') field = issue.params.missingProperty;
    if (field === undefined && typeof issue.params.additionalProperty === 'string') {
      field = issue.params.additionalProperty;
    }
    field = field === undefined ? 'body' : decodeJsonPointer(field);
    if (details[field] !== undefined) continue;
    details[field] = describeIssue(issue, segments.length > 1);
  }
  return details;
}

function decodeJsonPointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function describeIssue(issue: ValidationIssue, nested: boolean): string {
  const where = nested ? 'an item ' : '';
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'maxLength':
      return `${where}must be at most ${String(issue.params.limit)} characters long`;
    case 'minLength':
      return issue.params.limit === 1 ? `${where}must not be empty` : `${where}must be at least ${String(issue.params.limit)} characters long`;
    case 'minimum':
      return `${where}must be at least ${String(issue.params.limit)}`;
    case 'maximum':
      return `${where}must be at most ${String(issue.params.limit)}`;
    case 'format':
      if (issue.params.format === 'http-url') return `${where}${HTTP_URL_RULE}`;
      return issue.params.format === 'uuid' ? `${where}must be a UUID` : `${where}must be a valid ${String(issue.params.format)}`;
    case 'type':
      return `${where}must be ${article(String(issue.params.type))}`;
    case 'enum':
    case 'anyOf':
      return issue.message === undefined ? 'has an invalid value' : `${where}${issue.message}`;
    case 'maxItems':
      return `must have at most ${String(issue.params.limit)} items`;
    case 'additionalProperties':
      return 'is not a known field';
    default:
      return issue.message === undefined ? 'is invalid' : `${where}${issue.message}`;
  }
}

function article(type: string): string {
  const readable = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(readable) ? `an ${readable}` : `a ${readable}`;
}

/**
 * Errors Fastify raises before routing (a URL with broken percent-encoding, an over-long path
 * parameter): rendered like every other client error instead of Fastify's own body.
 */
export function renderFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'Invalid URL: malformed percent-encoding';
  send(reply, 400, { error: message });
}

/**
 * Sends the body as ready JSON, not through the route's response schema: an error's shape is the
 * same everywhere, and a route that declares its own body for the status (/healthz's 503) must
 * not make serializing the error fail.
 */
function send(reply: FastifyReply, status: number, body: ErrorBody): void {
  if (!reply.sent) reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * Node's errors for a request whose connection closed before its body was complete ('aborted',
 * ECONNRESET, a premature close of the body stream). Found by the socket sweep: a dropped upload
 * was logged as a failed request at error level, with a 500.
 */
function clientAborted(error: FastifyError, request: FastifyRequest): boolean {
  const code = error.code as string | undefined;
  if (code !== 'ECONNRESET' && code !== 'ERR_STREAM_PREMATURE_CLOSE' && error.message !== 'aborted') return false;
  return !request.raw.complete || request.raw.destroyed;
}

/** The status and message of each malformed-HTTP condition Node reports before Fastify sees a request. */
function clientErrorAnswer(code: string | undefined): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'The request headers are too large' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request took too long to arrive' };
  return { status: 400, message: 'Malformed HTTP request' };
}

/**
 * Fastify's `clientErrorHandler` (a request line, header or framing Node's parser refuses):
 * answers in the one error shape, `{error}`, where Fastify's default adds `message` and
 * `statusCode` (found by the socket sweep), then closes the connection as Node does. Logged at
 * debug: these are almost always scanners or broken proxies. To take effect, src/app.ts passes it
 * as the `clientErrorHandler` option.
 */
export function renderClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = clientErrorAnswer(error.code);
  this.log.debug({ err: error }, 'malformed HTTP request');
  if (socket.writable) {
    const body = JSON.stringify({ error: message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** What the client is told about an error: its status and the `{error, details?, requestId?}` body. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
}

/**
 * The one mapping from errors to answers: typed service errors, schema validation errors and
 * Fastify's own codes keep their status and message; anything else is a bug, logged with its
 * cause and answered with a 500 that carries only the request id (never a stack trace). Sets
 * `Retry-After` on a 429. The API sends the answer as JSON (`registerErrorHandling`); the pages
 * render it as HTML (src/web/plugin.ts).
 */
export function answerFor(error: FastifyError, request: FastifyRequest, reply: FastifyReply): ErrorAnswer {
  if (error instanceof TooManyRequests) {
    reply.header('Retry-After', String(error.retryAfterSeconds));
  }
  if (error instanceof HttpError) {
    const body: ErrorBody = { error: error.message };
    if (error.details !== undefined) body.details = error.details;
    return { status: error.statusCode, body };
  }
  if (error.validation !== undefined) {
    return { status: 400, body: { error: 'Validation failed', details: validationDetails(error.validation) } };
  }
  const known = error.code === undefined ? undefined : FASTIFY_CODES[error.code];
  if (known !== undefined && known.status < 500) {
    return { status: known.status, body: known.details === undefined ? { error: known.message } : { error: known.message, details: known.details } };
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && error.code === undefined)) {
    return { status: 400, body: { error: 'Malformed JSON in the request body' } };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { status, body: { error: error.message } };
  }
  if (clientAborted(error, request)) {
    // The client went away mid-body (a cancelled upload): nothing failed here, and nobody is
    // left to read an answer; the 400 only closes the request's books.
    request.log.info({ code: error.code }, 'the client closed the connection before the request was complete');
    return { status: 400, body: { error: 'The request was aborted before its body was complete' } };
  }
  request.log.error({ err: error }, 'request failed');
  return { status: 500, body: { error: 'Internal server error', requestId: String(request.id) } };
}

/** The JSON 404 of the API: `{error}` naming the method and path. */
export function renderRouteNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const route = (request.url.split('?')[0] ?? '').slice(0, 200);
  send(reply, 404, { error: `Route ${request.method} ${route} not found` });
}

/**
 * The one error handler of the JSON API: `answerFor`, sent as `{error, details?}`. Unknown
 * routes get `renderRouteNotFound`, which src/app.ts installs for `/api` and the other JSON
 * paths (the pages have their own HTML 404).
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body } = answerFor(error, request, reply);
    send(reply, status, body);
  });
}
