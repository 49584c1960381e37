import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

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
  return ajv;
}

/**
 * Query strings and path parameters arrive as text, so their numbers and arrays are coerced;
 * JSON bodies are taken as sent, so `"rating": "5"` is a 400 rather than silently a 5.
 * Unknown body fields are dropped, not rejected: clients may send back a whole DTO.
 */
const coercingAjv = buildAjv({ coerceTypes: 'array' });
const strictAjv = buildAjv({ coerceTypes: false });

/** The Ajv-style error for a top-level field holding Infinity, which no schema here means to allow. */
function infiniteField(data: unknown): FastifySchemaValidationError | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  for (const [field, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === 'number' && !Number.isFinite(item))) {
      return { instancePath: `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`, schemaPath: '#/finite', keyword: 'finite', params: {}, message: 'must be a finite number' };
    }
  }
  return undefined;
}

/**
 * Text coerced to a number may be `Infinity` (`?page=Infinity`): Ajv coerces it and, even with
 * `strictNumbers`, does not check the coerced value again, so it passed as an integer of at least
 * 0 and failed only when the answer was serialized (a 500, found by the hostile sweep). Coerced
 * parts are therefore checked once more for non-finite numbers: a 400 naming the field.
 */
function coercingValidator(schema: object): FastifyValidationResult {
  const validate = coercingAjv.compile(schema);
  const checked: FastifyValidationResult = (data: unknown): boolean => {
    if (!validate(data)) {
      checked.errors = validate.errors as FastifySchemaValidationError[];
      return false;
    }
    const infinite = infiniteField(data);
    checked.errors = infinite === undefined ? null : [infinite];
    return infinite === undefined;
  };
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body' ? strictAjv.compile(schema as object) : coercingValidator(schema as object);
