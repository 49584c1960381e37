/**
 * The pages' forms (docs/web.md, "Forms"): reading a urlencoded body's fields, and turning a
 * service's refusal into the messages a form shows again beside its fields.
 */
import { HttpError, type ErrorDetails } from '../errors.js';

/** A urlencoded body as @fastify/formbody parses it: a string per field, an array of them for a repeated one. */
export interface FormFields {
  /** The first value sent for `name`, or undefined when there is none. */
  first(name: string): string | undefined;
  /** Every value sent for `name`, in order (checkboxes, repeated fields). */
  all(name: string): string[];
}

/** The fields of a form body; anything that is not one (no body, a JSON array) has none. */
export function formFields(body: unknown): FormFields {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const all = (name: string): string[] => {
    // Own fields only: `constructor` or `__proto__` is a field a client may send, not the object's.
    if (!Object.hasOwn(fields, name)) return [];
    const value = fields[name];
    return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
  };
  return { all, first: (name) => all(name)[0] };
}

/** Why a form is shown again: the status to answer with and a message per field. */
export interface FormRefusal {
  status: number;
  details: ErrorDetails;
}

/**
 * A service's 400 or 409 as what the form shows again: its `details`, or its message on
 * `field` when it names none. Anything else (a 404, a 500) is thrown again, for the error page.
 */
export function formRefusal(error: unknown, field: string): FormRefusal {
  if (error instanceof HttpError && (error.statusCode === 400 || error.statusCode === 409)) {
    return { status: error.statusCode, details: error.details ?? { [field]: error.message } };
  }
  throw error;
}
