import type { TestContext } from './app.js';

/** A well-formed UUID v4 that no factory ever makes: the id of a row that does not exist (404). */
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

let counter = 0;
/** A name no other call in this process returns, so factories never collide. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix} ${counter}`;
}

async function created<T>(response: Promise<{ statusCode: number; body: string; json: () => unknown }>): Promise<T> {
  const res = await response;
  if (res.statusCode !== 201) throw new Error(`factory create failed: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}

export interface Created {
  id: string;
  name: string;
}

export function createTag(ctx: TestContext, name = uniqueName('tag')): Promise<Created> {
  return created(ctx.post('/api/tags', { name }));
}

export function createAuthor(ctx: TestContext, body: Record<string, unknown> = {}): Promise<Created & Record<string, unknown>> {
  return created(ctx.post('/api/authors', { name: uniqueName('Author'), ...body }));
}

export function createSeries(ctx: TestContext, body: Record<string, unknown> = {}): Promise<Created & Record<string, unknown>> {
  return created(ctx.post('/api/series', { name: uniqueName('Series'), ...body }));
}

export interface CreatedStory {
  id: string;
  title: string;
  [field: string]: unknown;
}

export function createStory(ctx: TestContext, body: Record<string, unknown> = {}): Promise<CreatedStory> {
  return created(ctx.post('/api/stories', { title: uniqueName('Story'), ...body }));
}
