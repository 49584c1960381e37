import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { BadRequest, Conflict, TooManyRequests, Unauthorized } from '../../errors.js';
import { TOKEN_COOKIE } from '../../auth/request-token.js';
import { TOKEN_LIFETIME_SECONDS } from '../../auth/tokens.js';
import { newPasswordProblem } from '../../auth/password.js';
import { PASSWORD_MAX_LENGTH } from '../../schemas/auth.js';
import { createBackup, SERVER_PAGES_PER_STEP } from '../../backup/snapshot.js';
import { backupTime, listBackups } from '../../backup/list.js';
import { ReindexJob } from '../../search/reindex-job.js';
import { render, template } from '../render.js';
import { throttledSentence } from '../login/view.js';
import {
  backupItems,
  healthView,
  passwordSummary,
  reindexView,
  type PasswordErrors,
  type ReindexView,
  type SettingsView,
} from './view.js';

const SETTINGS_TEMPLATE = template<SettingsView>('settings/settings');
/** The fragment the page polls while a reindex runs: no layout, so not a `template<M>()` page. */
const REINDEX_STATUS_TEMPLATE = 'settings/reindex-status';
/** Backups listed on the page, newest first. */
const BACKUPS_SHOWN = 20;

/** The first value of a form field (a repeated field arrives as an array). */
function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** The problems the form can see without checking the current password. */
function formProblems(current: string, next: string, confirm: string): PasswordErrors {
  const errors: PasswordErrors = {};
  if (current === '') errors.currentPassword = 'Enter your current password.';
  else if (current.length > PASSWORD_MAX_LENGTH) errors.currentPassword = 'Wrong current password.';
  const problem = newPasswordProblem(next);
  if (problem !== undefined) errors.newPassword = `The new password ${problem}.`;
  if (confirm !== next) errors.confirmPassword = 'The two new passwords differ.';
  return errors;
}

/**
 * `/settings` (docs/decisions.md, "Settings page"): change the password, back up now and list the
 * backups, reindex with progress, and the search engine's health. Each action calls the service
 * its API route calls (`app.auth`, `createBackup`, the search `reindex`).
 */
export const settingsRoutes: FastifyPluginAsync = async (app) => {
  const reindexJob = new ReindexJob(app.searchEngine, app.db, (error) => app.log.error({ err: error }, 'search reindex started from the settings page failed'));
  app.addHook('onClose', async () => reindexJob.settled());

  const page = async (reply: FastifyReply, options: { notice?: string; passwordErrors?: PasswordErrors; status?: number } = {}) => {
    const passwordErrors = options.passwordErrors ?? {};
    const model: SettingsView = {
      title: 'Settings',
      notice: options.notice,
      canChangePassword: !app.auth.passwordSetByEnvironment,
      passwordErrors,
      passwordSummary: passwordSummary(passwordErrors),
      ...backupItems(listBackups(app.config.dataDir, BACKUPS_SHOWN), BACKUPS_SHOWN),
      reindex: reindexView(reindexJob.status()),
      health: healthView(await app.searchEngine.health()),
    };
    return render(reply, SETTINGS_TEMPLATE, model, options.status);
  };

  app.get<{ Querystring: { changed?: string; backup?: string; reindex?: string } }>('/settings', async (request, reply) => {
    const { changed, backup, reindex } = request.query;
    let notice: string | undefined;
    if (changed === '1') notice = 'Password changed. Every other device and browser has been logged out.';
    // Only a name createBackup could have made is echoed (escaped all the same).
    else if (typeof backup === 'string' && backupTime(backup) !== undefined) notice = `Backup ${backup} written.`;
    else if (reindex === 'started') notice = 'Reindex started.';
    else if (reindex === 'running') notice = 'A reindex is already running; it goes on.';
    return page(reply, { notice });
  });

  app.post('/settings/password', { bodyLimit: 16 * 1024 }, async (request, reply) => {
    const current = field(request.body, 'currentPassword');
    const next = field(request.body, 'newPassword');
    const confirm = field(request.body, 'confirmPassword');
    const errors = formProblems(current, next, confirm);
    if (Object.keys(errors).length > 0) return page(reply, { passwordErrors: errors, status: 400 });
    let token: string;
    try {
      token = await app.auth.changePassword(current, next, request.ip);
    } catch (error) {
      if (error instanceof TooManyRequests) {
        reply.header('Retry-After', String(error.retryAfterSeconds));
        return page(reply, { passwordErrors: { form: throttledSentence(error.retryAfterSeconds) }, status: 429 });
      }
      if (error instanceof Unauthorized) return page(reply, { passwordErrors: { currentPassword: 'Wrong current password.' }, status: 401 });
      if (error instanceof Conflict) return page(reply, { passwordErrors: { form: error.message }, status: 409 });
      if (error instanceof BadRequest) return page(reply, { passwordErrors: { newPassword: error.message }, status: 400 });
      throw error;
    }
    reply.setCookie(TOKEN_COOKIE, token, app.tokenCookieOptions(request, TOKEN_LIFETIME_SECONDS));
    return reply.redirect('/settings?changed=1', 303);
  });

  // The API's rule: two backups at once are two snapshots, each under its own name.
  app.post('/settings/backup', { bodyLimit: 8 * 1024 }, async (request, reply) => {
    const result = await createBackup(app.db.$client, app.config.dataDir, { pagesPerStep: SERVER_PAGES_PER_STEP });
    if (result.missingImages.length > 0) {
      request.log.warn({ missingImages: result.missingImages }, 'backup: referenced images were missing; their references were cleared in the copy');
    }
    request.log.info({ path: result.path, sizeBytes: result.sizeBytes }, 'backup written');
    return reply.redirect(`/settings?backup=${encodeURIComponent(path.basename(result.path))}#backups`, 303);
  });

  app.post('/settings/reindex', { bodyLimit: 8 * 1024 }, async (_request, reply) => {
    const started = reindexJob.start();
    return reply.redirect(`/settings?reindex=${started ? 'started' : 'running'}#reindex`, 303);
  });

  app.get('/settings/reindex/status', async (_request, reply) => {
    const data: ReindexView = reindexView(reindexJob.status());
    const html = await reply.viewAsync(REINDEX_STATUS_TEMPLATE, data);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  });
};
