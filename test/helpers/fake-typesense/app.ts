/**
 * Test helpers for the Typesense engine: the app built against a fake, and ways to wait for the
 * outbox to drain. Kept beside the fake so the Typesense tests share one vocabulary.
 */
import type { Test } from 'tap';
import { buildTestApp, type TestContext } from '../app.js';
import type { TypesenseSearchEngine } from '../../../src/search/typesense-engine.js';
import type { FakeTypesense } from './index.js';

export const PREFIX = 'storyshelf';
export const STORIES = `${PREFIX}_stories`;
export const AUTHORS = `${PREFIX}_authors`;

export interface TypesenseContext extends TestContext {
  fake: FakeTypesense;
  engine: TypesenseSearchEngine;
}

/** The app with TYPESENSE_URL/KEY pointing at the fake, its collections ready. */
export async function buildTypesenseApp(t: Test, fake: FakeTypesense, env: Record<string, string> = {}): Promise<TypesenseContext> {
  const ctx = await buildTestApp(t, { TYPESENSE_URL: fake.url, TYPESENSE_API_KEY: fake.apiKey, ...env });
  const engine = ctx.app.searchEngine as TypesenseSearchEngine;
  await engine.idle();
  return { ...ctx, fake, engine };
}

/** Rows in the outbox, straight from the table. */
export function outboxRows(ctx: TestContext): number {
  return Number(ctx.app.db.$client.prepare('SELECT count(*) FROM search_outbox').pluck().get());
}

/** Polls until the condition holds (or fails the wait with the message). */
export async function waitFor(condition: () => boolean | Promise<boolean>, message: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until every queued change has been delivered and the worker is idle. */
export async function drained(ctx: TypesenseContext, timeoutMs = 15_000): Promise<void> {
  await waitFor(async () => {
    await ctx.engine.idle();
    return outboxRows(ctx) === 0;
  }, `the outbox to drain (${outboxRows(ctx)} rows left)`, timeoutMs);
}
