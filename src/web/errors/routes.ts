import type { FastifyReply } from 'fastify';
import type { ErrorBody } from '../../errors.js';
import { render, template } from '../render.js';
import { errorView, type ErrorView } from './view.js';

export const ERROR_TEMPLATE = template<ErrorView>('errors/error');

/** Renders the HTML page of an error answer (src/errors.ts, `answerFor`) with its status. */
export async function renderErrorPage(reply: FastifyReply, status: number, body: ErrorBody): Promise<FastifyReply> {
  return render(reply, ERROR_TEMPLATE, errorView(status, body), status);
}
