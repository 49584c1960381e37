/**
 * A refusal's `details` as the edit forms show them (docs/decisions.md, "Edit forms"): a message
 * beside each field and an error summary linking to the fields, in page order.
 */
import type { ErrorDetails } from '../../errors.js';

/** One message of the error summary: the field's label and the id of its control. */
export interface FieldError {
  field: string;
  id: string;
  label: string;
  message: string;
}

/** Turns `details` into per-field messages (keyed by form field) and the summary list, in page order. */
export function fieldErrors(
  details: ErrorDetails,
  fields: ReadonlyArray<readonly [string, string, string]>,
  rename: Record<string, string> = {},
): { byField: Record<string, string>; summary: FieldError[] } {
  const byField: Record<string, string> = {};
  const extra: string[] = [];
  for (const [key, message] of Object.entries(details)) {
    const field = rename[key] ?? key;
    if (fields.some(([name]) => name === field)) byField[field] ??= message;
    else extra.push(`${key} ${message}`);
  }
  const summary = fields
    .filter(([name]) => byField[name] !== undefined)
    .map(([field, id, label]) => ({ field, id, label, message: byField[field] as string }));
  // A message about no field of the form (a rare race) still reaches the summary, linked to the first field.
  const first = fields[0];
  for (const message of extra) if (first !== undefined) summary.push({ field: first[0], id: first[1], label: 'Form', message });
  return { byField, summary };
}

