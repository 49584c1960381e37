import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { Test } from 'tap';
import { HTTP_URL_FORMAT } from '../../src/schemas/values.js';
import { isHttpUrl } from '../../src/validation.js';

/**
 * The one Ajv that checks response bodies against the TypeBox schemas the routes declare (docs/architecture.md, "Ten habits",
 * habit 10). Formats as the app's (src/validation.ts), but no `removeAdditional`, `useDefaults`
 * or coercion: a check must never change the body it checks, or an extra field would pass.
 */
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv, ['uuid', 'date-time', 'uri']);
ajv.addFormat(HTTP_URL_FORMAT, isHttpUrl);

const compiled = new WeakMap<TSchema, ValidateFunction>();

function validator(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** True when `value` matches `schema`; for a check inside a helper that throws its own error. */
export function matchesSchema(schema: TSchema, value: unknown): boolean {
  return validator(schema)(value);
}

/** One assertion that `value` matches `schema`; Ajv's errors come with a failure. */
export function assertMatches(t: Test, schema: TSchema, value: unknown, message = 'matches its schema'): void {
  const validate = validator(schema);
  t.ok(validate(value), message, { errors: validate.errors });
}
