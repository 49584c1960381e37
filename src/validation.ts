import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema as object);
