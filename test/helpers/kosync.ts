/**
 * A KOReader sync client for tests, made from KOReader's kosync api.json (its four methods,
 * paths and accepted statuses) and the headers its plugin sends (Accept:
 * application/vnd.koreader.v1+json, x-auth-user, x-auth-key = md5(password)); and a device token
 * to sign in with.
 */
import { createHash } from 'node:crypto';
import type { TestContext } from './app.js';

export const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** KOReader's api.json, as its Spore client reads it: method, path, statuses it accepts. */
const API = {
  register: { method: 'POST', path: '/users/create', expected: [201, 402] },
  authorize: { method: 'GET', path: '/users/auth', expected: [200, 401] },
  update_progress: { method: 'PUT', path: '/syncs/progress', expected: [200, 202, 401] },
  get_progress: { method: 'GET', path: '/syncs/progress/:document', expected: [200, 401] },
} as const;

/** A client as KOReader's kosync plugin builds it: the password is sent as its MD5 (`x-auth-key`). */
export function koreader(ctx: TestContext, username: string, password: string) {
  const call = async (name: keyof typeof API, params: Record<string, unknown> = {}) => {
    const spec = API[name];
    const url = `/kosync${spec.path.replace(':document', encodeURIComponent(String(params.document ?? '')))}`;
    const res = await ctx.app.inject({
      method: spec.method,
      url,
      headers: {
        accept: 'application/vnd.koreader.v1+json',
        'x-auth-user': username,
        'x-auth-key': md5(password),
        ...(spec.method === 'GET' ? {} : { 'content-type': 'application/json' }),
      },
      ...(spec.method === 'GET' ? {} : { payload: JSON.stringify(params) }),
    });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.json() as Record<string, unknown>, expected: (spec.expected as readonly number[]).includes(res.statusCode) };
  };
  return call;
}

export async function deviceToken(ctx: TestContext, scopes = ['read', 'progress']): Promise<string> {
  const res = await ctx.post('/api/tokens', { name: `reader ${scopes.join(' ')}`, scopes });
  if (res.statusCode !== 201) throw new Error(`token failed: ${res.statusCode} ${res.body}`);
  return res.json().token as string;
}
