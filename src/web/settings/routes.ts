import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { BadRequest, Conflict, HttpError, TooManyRequests, Unauthorized } from '../../errors.js';
import { TOKEN_COOKIE } from '../../auth/request-token.js';
import { TOKEN_LIFETIME_SECONDS } from '../../auth/tokens.js';
import { newPasswordProblem } from '../../auth/password.js';
import { PASSWORD_MAX_LENGTH } from '../../schemas/auth.js';
import { SCOPES, TOKEN_NAME_MAX, type Scope } from '../../schemas/tokens.js';
import { backUpNow } from '../../backup/now.js';
import { backupTime, listBackups } from '../../backup/list.js';
import { reindexStatus, startReindex } from '../../search/reindex-job.js';
import { render, template } from '../render.js';
import { formFields } from '../form.js';
import { throttledSentence } from '../login/view.js';
import {
  backupItems,
  deviceItems,
  fanficfareView,
  updatesView,
  healthView,
  mailView,
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
 * its API route calls (`app.auth`, `backUpNow`, the search `reindex`).
 */
export const settingsRoutes: FastifyPluginAsync = async (app) => {
  interface PageOptions {
    notice?: string;
    passwordErrors?: PasswordErrors;
    deviceError?: string;
    createdToken?: { name: string; token: string };
    status?: number;
  }
  const page = async (request: FastifyRequest, reply: FastifyReply, options: PageOptions = {}) => {
    const passwordErrors = options.passwordErrors ?? {};
    const model: SettingsView = {
      title: 'Settings',
      notice: options.notice,
      canChangePassword: !app.auth.passwordSetByEnvironment,
      passwordErrors,
      passwordSummary: passwordSummary(passwordErrors),
      ...backupItems(listBackups(app.config.dataDir, BACKUPS_SHOWN), BACKUPS_SHOWN),
      reindex: reindexView(reindexStatus(app.jobs, app.db)),
      health: healthView(await app.searchEngine.health()),
      fanficfare: fanficfareView(await app.fanficfare.status()),
      updates: updatesView(app.config.updateWebhook, `${request.protocol}://${request.host}`),
      devices: {
        items: deviceItems(app.deviceTokens.list()),
        error: options.deviceError,
        created: options.createdToken,
        origin: `${request.protocol}://${request.host}`,
      },
      mail: mailView(app.config.mail),
    };
    return render(reply, SETTINGS_TEMPLATE, model, options.status);
  };

  app.get<{ Querystring: { changed?: string; backup?: string; reindex?: string; revoked?: string } }>('/settings', async (request, reply) => {
    const { changed, backup, reindex } = request.query;
    let notice: string | undefined;
    if (changed === '1') notice = 'Password changed. Every other device and browser has been logged out.';
    // Only a name createBackup could have made is echoed (escaped all the same).
    else if (typeof backup === 'string' && backupTime(backup) !== undefined) notice = `Backup ${backup} written.`;
    else if (reindex === 'started') notice = 'Reindex started.';
    else if (reindex === 'running') notice = 'A reindex is already running; it goes on.';
    if (request.query.revoked === '1') notice = 'Device token revoked: that device is signed out.';
    return page(request, reply, { notice });
  });

  app.post('/settings/password', { bodyLimit: 16 * 1024 }, async (request, reply) => {
    const form = formFields(request.body);
    const current = form.first('currentPassword') ?? '';
    const next = form.first('newPassword') ?? '';
    const confirm = form.first('confirmPassword') ?? '';
    const errors = formProblems(current, next, confirm);
    if (Object.keys(errors).length > 0) return page(request, reply, { passwordErrors: errors, status: 400 });
    let token: string;
    try {
      token = await app.auth.changePassword(current, next, request.ip);
    } catch (error) {
      if (error instanceof TooManyRequests) {
        reply.header('Retry-After', String(error.retryAfterSeconds));
        return page(request, reply, { passwordErrors: { form: throttledSentence(error.retryAfterSeconds) }, status: 429 });
      }
      if (error instanceof Unauthorized) return page(request, reply, { passwordErrors: { currentPassword: 'Wrong current password.' }, status: 401 });
      if (error instanceof Conflict) return page(request, reply, { passwordErrors: { form: error.message }, status: 409 });
      if (error instanceof BadRequest) return page(request, reply, { passwordErrors: { newPassword: error.message }, status: 400 });
      throw error;
    }
    reply.setCookie(TOKEN_COOKIE, token, app.tokenCookieOptions(request, TOKEN_LIFETIME_SECONDS));
    return reply.redirect('/settings?changed=1', 303);
  });

  // The secret is rendered into this one answer and nowhere else: no redirect, so it never sits
  // in a URL, the history or a log (docs/decisions.md, "Device tokens").
  app.post('/settings/tokens', { bodyLimit: 8 * 1024 }, async (request, reply) => {
    const form = formFields(request.body);
    const name = form.first('name') ?? '';
    const scopes = form.all('scopes').filter((scope): scope is Scope => (SCOPES as readonly string[]).includes(scope));
    if (name.trim() === '' || name.length > TOKEN_NAME_MAX) {
      return page(request, reply, { deviceError: `Name the device (1 to ${TOKEN_NAME_MAX} characters).`, status: 400 });
    }
    if (scopes.length === 0) return page(request, reply, { deviceError: 'Choose at least one thing the device may do.', status: 400 });
    try {
      const created = app.deviceTokens.create(name, scopes);
      reply.header('cache-control', 'no-store');
      return page(request, reply, { createdToken: { name: created.name, token: created.token }, status: 201 });
    } catch (error) {
      if (error instanceof HttpError && error.statusCode < 500) return page(request, reply, { deviceError: error.message, status: error.statusCode });
      throw error;
    }
  });

  app.post<{ Params: { id: string } }>('/settings/tokens/:id/revoke', { bodyLimit: 8 * 1024 }, async (request, reply) => {
    try {
      app.deviceTokens.revoke(request.params.id);
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 404) return page(request, reply, { deviceError: 'That device token was already revoked.', status: 404 });
      throw error;
    }
    return reply.redirect('/settings?revoked=1#devices', 303);
  });

  // The API's rule: two backups at once are two snapshots, each under its own name.
  app.post('/settings/backup', { bodyLimit: 8 * 1024 }, async (request, reply) => {
    const result = await backUpNow(app.db, app.config.dataDir, request.log);
    return reply.redirect(`/settings?backup=${encodeURIComponent(path.basename(result.path))}#backups`, 303);
  });

  app.post('/settings/reindex', { bodyLimit: 8 * 1024 }, async (_request, reply) => {
    const started = startReindex(app.jobs);
    return reply.redirect(`/settings?reindex=${started ? 'started' : 'running'}#reindex`, 303);
  });

  app.get('/settings/reindex/status', async (_request, reply) => {
    const data: ReindexView = reindexView(reindexStatus(app.jobs, app.db));
    const html = await reply.viewAsync(REINDEX_STATUS_TEMPLATE, data);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  });
};
