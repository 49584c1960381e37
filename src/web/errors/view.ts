import { STATUS_CODES } from 'node:http';
import type { ErrorBody } from '../../errors.js';
import type { PageModel } from '../render.js';

/** An error page: the status, its sentence, and what the service said (never a stack trace). */
export interface ErrorView extends PageModel {
  status: number;
  message: string;
  /** Per-field problems, as `field: message` lines. */
  details: Array<{ field: string; message: string }>;
  /** Quoted on a 500 so a log line can be found. */
  requestId: string | undefined;
}

/** The view model of an error page from the answer src/errors.ts worked out. */
export function errorView(status: number, body: ErrorBody): ErrorView {
  const heading = status === 404 ? 'Page not found' : status >= 500 ? 'Something went wrong' : (STATUS_CODES[status] ?? 'Error');
  const message = status >= 500 ? 'The server could not complete this request. Please try again; if it keeps happening, the log has the details.' : body.error;
  return {
    title: heading,
    status,
    message,
    details: Object.entries(body.details ?? {}).map(([field, text]) => ({ field, message: text })),
    requestId: body.requestId,
  };
}
