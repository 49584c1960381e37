import type { PageModel } from '../render.js';

/** The login form: where to go afterwards and, after a failed attempt, why. */
export interface LoginView extends PageModel {
  /** Already checked by `safeNext`. */
  next: string;
  /** The problem with the password field ("Wrong password"), shown beside it and in the summary. */
  passwordError: string | undefined;
  /** A problem that is not the field's (too many attempts), shown in the summary only. */
  formError: string | undefined;
}

export function loginView(next: string, errors: { password?: string; form?: string } = {}): LoginView {
  return { title: 'Log in', next, passwordError: errors.password, formError: errors.form };
}

/** docs/decisions.md, "Authentication hardening": the lockout as a sentence, in whole minutes. */
export function throttledSentence(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many failed logins; try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}
