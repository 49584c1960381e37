import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Scope } from '../../src/schemas/tokens.js';
import type { TestContext } from './app.js';

/** A new device token's secret, made through the API by the test's logged-in session. */
export async function makeDeviceToken(ctx: TestContext, scopes?: Scope[], name = 'Test reader'): Promise<string> {
  const res = await ctx.post('/api/tokens', scopes === undefined ? { name } : { name, scopes });
  if (res.statusCode !== 201) throw new Error(`token create failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { token: string }).token;
}

/** `Authorization: Basic` with any user name and the secret as the password, as OPDS readers send it. */
export function basicAuth(secret: string, user = 'reader'): string {
  return `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
}

/** A request carrying only `authorization` (no login cookie), through the real HTTP stack. */
export function asDevice(ctx: TestContext, authorization: string, options: InjectOptions): Promise<LightMyRequestResponse> {
  return ctx.app.inject({ ...options, headers: { ...(options.headers ?? {}), authorization } });
}
