import type { TSchema } from '@sinclair/typebox';
import type { FastifySchemaValidationError } from 'fastify';
import { validationDetails } from '../errors.js';
import { validatorCompiler } from '../validation.js';

const compiled = new WeakMap<TSchema, ReturnType<typeof validatorCompiler>>();

/**
 * Checks one parsed archive entry (or list line) against its TypeBox schema with the validator
 * JSON bodies get (no coercion, well-formed text only), and says what is wrong in the words of a
 * 400's `details` (`name: must be at most 255 characters long; rating: …`), or undefined when
 * nothing is. Unknown fields are dropped from `value`, as from a body.
 */
export function checkEntry(schema: TSchema, value: unknown): string | undefined {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/archive' });
    compiled.set(schema, validate);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be a JSON object';
  if (validate(value) === true) return undefined;
  const issues = (validate as unknown as { errors?: FastifySchemaValidationError[] | null }).errors ?? [];
  return Object.entries(validationDetails(issues))
    .map(([field, message]) => `${field}: ${message}`)
    .join('; ');
}
