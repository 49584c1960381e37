import type { BackupList } from '../../backup/list.js';
import type { MailConfig } from '../../config.js';
import type { ReindexStatus } from '../../search/reindex-job.js';
import type { SearchHealth } from '../../schemas/search.js';
import type { TokenDto } from '../../schemas/tokens.js';
import type { FanficfareStatus } from '../../sources/fanficfare/engine.js';
import type { UpdateWebhookConfig } from '../../config.js';
import type { PageModel } from '../render.js';

/** The password form's problems, each shown beside its field and in the summary. */
export interface PasswordErrors {
  currentPassword?: string;
  newPassword?: string;
  confirmPassword?: string;
  /** Not one field's (too many attempts, APP_PASSWORD): the summary only. */
  form?: string;
}

export interface BackupItem {
  name: string;
  /** ISO 8601, for `<time datetime>`. */
  datetime: string;
  /** "2026-11-21 10:00 UTC". */
  taken: string;
  /** "1.2 MB". */
  size: string;
}

/** The reindex status fragment (settings/reindex-status.eta), also part of the page. */
export interface ReindexView {
  running: boolean;
  /** One sentence on the state: "Rebuilding the index: 400 of 1,000 rows." */
  sentence: string;
  /** For `<progress>` while running, when the rows have been counted. */
  done: number | undefined;
  total: number | undefined;
  /** Whether the last reindex failed (the sentence then says why). */
  failed: boolean;
}

export interface HealthView {
  engine: string;
  healthy: boolean;
  message: string;
  pendingChanges: string | undefined;
  error: string | undefined;
}

/** One device token as the settings page lists it (never its secret). */
export interface DeviceItem {
  id: string;
  name: string;
  prefix: string;
  /** "read, progress". */
  scopes: string;
  created: string;
  /** "never" or a UTC time. */
  lastUsed: string;
}

/** The Devices section: the tokens, the form's problem, and a just-made secret shown once. */
export interface DevicesView {
  items: DeviceItem[];
  error: string | undefined;
  created: { name: string; token: string } | undefined;
  /** This server's address as the browser reached it, for the catalog and sync addresses. */
  origin: string;
}

/** Whether stories can be sent by mail, and through what: never the login (docs/decisions.md, "Send to an e-reader"). */
export interface MailView {
  configured: boolean;
  /** "smtps://smtp.example.com:465". */
  server: string;
  from: string;
  /** `SEND_TO`, or "none (each send names one)". */
  defaultTo: string;
  /** "50 MB". */
  limit: string;
}

/** The settings page's mail section from the configuration; the URL's user and password are left out. */
export function mailView(mail: MailConfig | undefined): MailView {
  if (mail === undefined) return { configured: false, server: '', from: '', defaultTo: '', limit: '' };
  const host = mail.host.includes(':') ? `[${mail.host}]` : mail.host;
  return {
    configured: true,
    server: `${mail.secure ? 'smtps' : 'smtp'}://${host}:${mail.port}${mail.auth === undefined ? '' : ' (with a login)'}`,
    from: mail.from,
    defaultTo: mail.defaultTo ?? 'none (each send names one)',
    limit: `${mail.maxBytes / 1_000_000} MB`,
  };
}

export interface SettingsView extends PageModel {
  /** A sentence on what the last POST did (password changed, backup written), shown as a status. */
  notice: string | undefined;
  /** False while APP_PASSWORD sets the password: the form is replaced by a note. */
  canChangePassword: boolean;
  passwordErrors: PasswordErrors;
  /** Any password error at all, for the summary and `aria-invalid`. */
  passwordSummary: string[];
  backups: BackupItem[];
  /** "Showing the newest 20 of 31 backups." when some are left out, else undefined. */
  backupsMore: string | undefined;
  reindex: ReindexView;
  health: HealthView;
  devices: DevicesView;
  mail: MailView;
  fanficfare: FanficfareView;
  updates: UpdatesView;
}

/** How updates from the sources are told (docs/decisions.md, "Sources › Telling the reader"). */
export interface UpdatesView {
  /** The webhook's origin (`https://ntfy.sh`), never its path or query, which may hold a token; undefined: off. */
  webhook: string | undefined;
  topic: string | undefined;
  /** The Atom feed of updates at this server, for a feed reader. */
  feed: string;
}

export function updatesView(webhook: UpdateWebhookConfig | undefined, origin: string): UpdatesView {
  return { webhook: webhook?.url.origin, topic: webhook?.topic, feed: `${origin}/opds/updates.atom` };
}

/** FanFicFare as an optional engine (docs/decisions.md, "Sources"). */
export interface FanficfareView {
  configured: boolean;
  answers: boolean;
  /** "4.59.9", or undefined. */
  version: string | undefined;
  command: string | undefined;
  error: string | undefined;
}

export function deviceItems(tokens: readonly TokenDto[]): DeviceItem[] {
  return tokens.map((token) => ({
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    scopes: token.scopes.join(', '),
    created: formatUtc(new Date(token.createdAt)),
    lastUsed: token.lastUsedAt === null ? 'never' : formatUtc(new Date(token.lastUsedAt)),
  }));
}

const BYTE_UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** 1,234,567 bytes as "1.2 MB" (powers of 1,000, as file managers show them). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const shown = unit === 0 ? String(value) : value.toFixed(value < 10 ? 1 : 0);
  return `${shown} ${BYTE_UNITS[unit]}`;
}

/** "2026-11-21 10:00 UTC": the server knows no reader's time zone. */
export function formatUtc(time: Date): string {
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const count = new Intl.NumberFormat('en');

export function backupItems(list: BackupList, limit: number): { backups: BackupItem[]; backupsMore: string | undefined } {
  const backups = list.backups.map((entry) => ({
    name: entry.name,
    datetime: entry.takenAt.toISOString(),
    taken: formatUtc(entry.takenAt),
    size: formatBytes(entry.sizeBytes),
  }));
  const backupsMore = list.total > list.backups.length ? `Showing the newest ${limit} of ${count.format(list.total)} backups.` : undefined;
  return { backups, backupsMore };
}

export function reindexView(status: ReindexStatus): ReindexView {
  switch (status.state) {
    case 'idle':
      return { running: false, sentence: 'No reindex has run recently.', done: undefined, total: undefined, failed: false };
    case 'running': {
      const { done, total } = status;
      const rows =
        done === undefined || total === undefined
          ? 'starting.'
          : `${count.format(done)} of ${count.format(total)} ${total === 1 ? 'row' : 'rows'} (${total === 0 ? 100 : Math.floor((done / total) * 100)}%).`;
      return { running: true, sentence: `Rebuilding the search index: ${rows}`, done, total, failed: false };
    }
    case 'finished':
      return { running: false, sentence: `${status.message} (finished ${formatUtc(status.finishedAt)}).`, done: undefined, total: undefined, failed: false };
    case 'failed':
      return { running: false, sentence: `The last reindex failed: ${status.message}`, done: undefined, total: undefined, failed: true };
    case 'cancelled':
      return { running: false, sentence: `The last reindex was cancelled (${formatUtc(status.finishedAt)}).`, done: undefined, total: undefined, failed: false };
  }
}

export function healthView(health: SearchHealth): HealthView {
  return {
    engine: health.engine === 'typesense' ? 'Typesense' : 'Embedded (SQLite FTS5)',
    healthy: health.status === 'healthy',
    message: health.message,
    pendingChanges: health.pendingChanges === undefined ? undefined : count.format(health.pendingChanges),
    error: health.error,
  };
}

export function passwordSummary(errors: PasswordErrors): string[] {
  return [errors.form, errors.currentPassword, errors.newPassword, errors.confirmPassword].filter((text): text is string => text !== undefined);
}

export function fanficfareView(status: FanficfareStatus): FanficfareView {
  return {
    configured: status.configured,
    answers: status.answers,
    version: status.version ?? undefined,
    command: status.command ?? undefined,
    error: status.error ?? undefined,
  };
}
