import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyRequest, FastifySchemaCompiler, FastifySchemaValidationError, RouteOptions } from 'fastify';
import { BadRequest, HttpError, validationDetails, type ErrorDetails } from './errors.js';
import { HTTP_URL_FORMAT } from './schemas/values.js';

/**
 * A service's own rules for a body (blank names, both forms of a link, unknown ids): the
 * offences of the fields given. They are given only the fields that passed the schema, so every
 * field may be absent.
 */
export type BodyRules<T> = (body: Partial<T>) => ErrorDetails;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The service's own rules for this route's body, run on the fields that passed the schema
     * when another field failed it, so that one 400 names every offending field
     * (docs/decisions.md, "Validation"). A method, so that each route's rules may take its own
     * body type: they are given only fields its schema accepted (`withRuleIssues`).
     */
    bodyRules?(body: Readonly<Record<string, unknown>>): ErrorDetails;
  }
}

/**
 * An absolute http(s) URL, surrounding white space aside (author URLs are trimmed when stored).
 * `javascript:`, `data:`, `vbscript:` and every other scheme are refused: a client that renders
 * the value as a link must not be made to run it.
 */
export function isHttpUrl(text: string): boolean {
  const url = text.trim();
  return /^https?:\/\/[^\s/]/i.test(url) && URL.canParse(url);
}

/** The message for text holding a lone UTF-16 surrogate, JSON, query, path or form field alike. */
export const ILL_FORMED_TEXT = 'must be well-formed Unicode text (no lone UTF-16 surrogate)';
const LONE_SURROGATE = /\p{Surrogate}/u;

/** False for text holding a lone UTF-16 surrogate (in a `u` regex only lone ones are "Surrogate"). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** What a compiled validator is to Fastify: the Ajv shape (a predicate with `errors`). */
type FastifyValidationResult = ReturnType<FastifySchemaCompiler<unknown>>;

function buildAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    removeAdditional: true,
    // TypeBox adds `kind`/`modifier` symbols and OpenAPI keywords Ajv need not know.
    strict: false,
    ...options,
  });
  addFormats.default(ajv, ['uuid', 'date-time', 'uri']);
  ajv.addFormat(HTTP_URL_FORMAT, isHttpUrl);
  return ajv;
}

/**
 * Query strings and path parameters arrive as text, so their numbers and arrays are coerced;
 * JSON bodies are taken as sent, so `"rating": "5"` is a 400 rather than silently a 5.
 * Unknown body fields are dropped, not rejected: clients may send back a whole DTO.
 */
const coercingAjv = buildAjv({ coerceTypes: 'array' });
const strictAjv = buildAjv({ coerceTypes: false });

function pointer(field: string): string {
  return `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** The Ajv-style error for a top-level field holding Infinity, which no schema here means to allow. */
function infiniteField(data: unknown): FastifySchemaValidationError | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  for (const [field, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === 'number' && !Number.isFinite(item))) {
      return { instancePath: pointer(field), schemaPath: '#/finite', keyword: 'finite', params: {}, message: 'must be a finite number' };
    }
  }
  return undefined;
}

/** Whether any string in `value`, however deep, holds a lone surrogate (iterative: depth is the client's). */
function holdsIllFormedText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (!isWellFormedText(item)) return true;
    } else if (item !== null && typeof item === 'object') {
      pending.push(...Object.values(item));
    }
  }
  return false;
}

/**
 * One error per top-level field whose text holds a lone UTF-16 surrogate (`"\ud800"` is valid
 * JSON): such text cannot be stored and read back as the same string, and made a tag name the
 * find-or-create of tags fail with a 500. Refused in every part a schema validates.
 */
function illFormedFields(data: unknown): FastifySchemaValidationError[] {
  const issue = (instancePath: string) => ({ instancePath, schemaPath: '#/wellFormed', keyword: 'wellFormed', params: {}, message: ILL_FORMED_TEXT });
  if (data === null || typeof data !== 'object') return holdsIllFormedText(data) ? [issue('')] : [];
  return Object.entries(data)
    .filter(([, value]) => holdsIllFormedText(value))
    .map(([field]) => issue(pointer(field)));
}

/**
 * Ajv's verdict plus the checks a schema cannot say: well-formed text everywhere, and for coerced
 * parts finite numbers. Text coerced to a number may be `Infinity` (`?page=Infinity`): Ajv
 * coerces it and, even with `strictNumbers`, does not check the coerced value again, so it passed
 * as an integer of at least 0 and failed only when the answer was serialized (a 500, found by the
 * hostile sweep). Coerced parts are therefore checked once more for non-finite numbers.
 *
 * Ajv compiles the schema on the first call, not when Fastify asks for the validator at start-up:
 * compiling all ~320 route validators was ~20 % of an app's first start (docs/decisions.md,
 * "Validation"); test/unit/route-schemas-compile.test.ts compiles every one of them.
 */
function checkedValidator(compile: () => ValidateFunction, coerced: boolean): FastifyValidationResult {
  let validate: ValidateFunction | undefined;
  const checked: FastifyValidationResult = (data: unknown): boolean => {
    validate ??= compile();
    const issues = validate(data) ? [] : [...(validate.errors as FastifySchemaValidationError[])];
    const infinite = coerced && issues.length === 0 ? infiniteField(data) : undefined;
    if (infinite !== undefined) issues.push(infinite);
    issues.push(...illFormedFields(data));
    checked.errors = issues.length === 0 ? null : issues;
    return issues.length === 0;
  };
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body' ? checkedValidator(() => strictAjv.compile(schema as object), false) : checkedValidator(() => coercingAjv.compile(schema as object), true);

/** Runs one field's check; a 400's `details` join `details` instead of ending the checks. */
export function collect<T>(details: ErrorDetails, check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof HttpError) || error.statusCode !== 400 || error.details === undefined) throw error;
    Object.assign(details, error.details);
    return undefined;
  }
}

/** Throws the one 400 naming every field in `details`, if there is any. */
export function throwIfInvalid(details: ErrorDetails): void {
  if (Object.keys(details).length > 0) throw new BadRequest('Validation failed', details);
}

/**
 * For every route with a body (an `onRoute` hook, so no route can forget it): a schema failure
 * no longer ends the request at once. The route's `bodyRules` then check the fields that passed
 * the schema, and one 400 names every offending field of both kinds, before anything is written.
 */
export function collectEveryBodyIssue(route: RouteOptions): void {
  if (route.schema?.body === undefined) return;
  route.attachValidation = true;
  const earlier = route.preHandler === undefined ? [] : [route.preHandler].flat();
  route.preHandler = [...earlier, reportBodyIssues];
}

async function reportBodyIssues(request: FastifyRequest): Promise<void> {
  const failure = request.validationError;
  if (failure === undefined) return;
  const rules = request.routeOptions.config.bodyRules;
  const body = request.body;
  if (failure.validationContext !== 'body' || rules === undefined || !isFields(body)) throw failure;
  // The route's validator has spoken (a route may have one schema per content type): its verdict, then the rules.
  const details = validationDetails(failure.validation as FastifySchemaValidationError[]);
  throw new BadRequest('Validation failed', withRuleIssues(details, (passed) => rules(passed), body));
}

function isFields(body: unknown): body is Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body);
}

/** Each body schema compiled once, as the routes' validator compiles it. */
const bodyValidators = new WeakMap<TSchema, FastifyValidationResult>();

function bodyValidator(schema: TSchema): FastifyValidationResult {
  let validate = bodyValidators.get(schema);
  if (validate === undefined) {
    validate = validatorCompiler({ schema, method: 'POST', url: '', httpPart: 'body' }) as FastifyValidationResult;
    bodyValidators.set(schema, validate);
  }
  return validate;
}

/** A body checked by {@link checkBody}: typed as its schema says, or every offence. */
export type CheckedBody<T> = { body: T; issues: undefined } | { body: undefined; issues: ErrorDetails };

/**
 * Checks `body` as a route with this body schema and these rules does (docs/decisions.md,
 * "Validation"): the schema's offences, worded as the API words them, then `rules` on the fields
 * the schema accepted. Valid, it is the body as the schema's validator left it (unknown fields
 * dropped), typed by the schema; the caller's object is not changed.
 */
export function checkBody<S extends TSchema>(schema: S, rules: BodyRules<Static<S>> | undefined, body: unknown): CheckedBody<Static<S>> {
  const validate = bodyValidator(schema);
  const candidate: unknown = isFields(body) ? { ...body } : body;
  if (validate(candidate)) {
    const issues = rules === undefined ? {} : rules(candidate as Static<S>);
    return Object.keys(issues).length === 0 ? { body: candidate as Static<S>, issues: undefined } : { body: undefined, issues };
  }
  const issues = validationDetails((validate.errors ?? []) as FastifySchemaValidationError[]);
  return { body: undefined, issues: rules === undefined || !isFields(body) ? issues : withRuleIssues(issues, rules, body) };
}

/**
 * `details` (the schema's offences of `body`) and the offences `rules` find in the fields the
 * schema accepted: one answer naming every offending field, for the API and the pages alike.
 */
function withRuleIssues<T>(details: ErrorDetails, rules: BodyRules<T>, body: Record<string, unknown>): ErrorDetails {
  // Only what the schema accepted reaches the rules, so each field they see has its schema type.
  const passed = Object.fromEntries(Object.entries(body).filter(([field]) => details[field] === undefined)) as Partial<T>;
  const all = { ...details };
  for (const [field, message] of Object.entries(rules(passed))) all[field] ??= message;
  return all;
}

