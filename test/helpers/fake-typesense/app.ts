/**
 * Test helpers for the Typesense engine: the app built against a fake, and ways to wait for the
 * outbox to drain. Kept beside the fake so the Typesense tests share one vocabulary.
 */
import type { Test } from 'tap';
import type { BuildOptions } from '../../../src/app.js';
import { buildTestApp, type TestContext } from '../app.js';
import type { EmbeddedSearchEngine } from '../../../src/search/embedded/engine.js';
import type { TypesenseSearchEngine } from '../../../src/search/typesense/engine.js';
import { startFakeTypesense, type FakeTypesense } from './index.js';

export const PREFIX = 'storyshelf';
export const STORIES = `${PREFIX}_stories`;
export const AUTHORS = `${PREFIX}_authors`;

export interface TypesenseContext extends TestContext {
  fake: FakeTypesense;
  engine: TypesenseSearchEngine;
}

/** The app with TYPESENSE_URL/KEY pointing at the fake, its collections ready. */
export async function buildTypesenseApp(
  t: Test,
  fake: FakeTypesense,
  env: Record<string, string> = {},
  logger: BuildOptions['logger'] = false,
): Promise<TypesenseContext> {
  const ctx = await buildTestApp(t, { TYPESENSE_URL: fake.url, TYPESENSE_API_KEY: fake.apiKey, ...env }, logger);
  const engine = ctx.app.searchEngine as TypesenseSearchEngine;
  await engine.idle();
  return { ...ctx, fake, engine };
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * Like {@link buildTypesenseApp}, with the app's log lines (info and up) collected, for tests
 * of what is logged when.
 */
export async function buildLoggedTypesenseApp(t: Test, fake: FakeTypesense): Promise<TypesenseContext & { logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const stream = { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) };
  return { ...(await buildTypesenseApp(t, fake, {}, { level: 'info', stream })), logs };
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

/** The two engines the parity tests run every case on. */
export const ENGINES = ['embedded', 'typesense'] as const;
export type EngineName = (typeof ENGINES)[number];

/**
 * An app on either engine (Typesense: against a fresh fake), and `settle`, which waits until
 * searches see every write: the embedded engine's typo vocabulary refreshed, or the outbox drained.
 */
export async function engineWorld(t: Test, engine: EngineName): Promise<{ ctx: TestContext; settle: () => Promise<void> }> {
  if (engine === 'embedded') {
    const ctx = await buildTestApp(t);
    return { ctx, settle: () => (ctx.app.searchEngine as EmbeddedSearchEngine).refreshTerms() };
  }
  const ctx = await buildTypesenseApp(t, await startFakeTypesense(t));
  return { ctx, settle: () => drained(ctx) };
}

interface StoryDto {
  id: string;
  title: string;
  summary: string | null;
  authorId: string | null;
  authorName: string | null;
  seriesName: string | null;
  volume: number | null;
  rating: number | null;
  wordCount: number;
  coverPath: string | null;
  tags: { name: string }[];
  createdAt: string;
  updatedAt: string;
}

interface AuthorDto {
  id: string;
  name: string;
  notes: string | null;
  urls: string[];
  authorRating: number | null;
  averageStoryRating: number | null;
  storyCount: number;
  updatedAt: string;
}

const ms = (iso: string) => Date.parse(iso);

/** Every story as the API shows it, projected onto the Typesense document's fields. */
export async function expectedStories(ctx: TestContext): Promise<Record<string, unknown>[]> {
  const res = await ctx.get('/api/stories?size=100&sortBy=title&sortDir=asc');
  const stories = (res.json() as { content: StoryDto[] }).content;
  return stories.map((story) => ({
    id: story.id,
    title: story.title,
    summary: story.summary ?? undefined,
    authorName: story.authorName ?? undefined,
    seriesName: story.seriesName ?? undefined,
    volume: story.volume ?? undefined,
    rating: story.rating ?? undefined,
    wordCount: story.wordCount,
    coverPath: story.coverPath ?? undefined,
    tagNames: story.tags.map((tag) => tag.name).sort(),
    createdAt: ms(story.createdAt),
    updatedAt: ms(story.updatedAt),
  }));
}

export async function expectedAuthors(ctx: TestContext): Promise<Record<string, unknown>[]> {
  const res = await ctx.get('/api/authors?size=100');
  const authors = (res.json() as { content: AuthorDto[] }).content;
  return authors.map((author) => ({
    id: author.id,
    name: author.name,
    notes: author.notes ?? undefined,
    urls: author.urls,
    authorRating: author.authorRating ?? undefined,
    averageStoryRating: author.averageStoryRating ?? undefined,
    storyCount: author.storyCount,
    updatedAt: ms(author.updatedAt),
  }));
}

function project(documents: Record<string, unknown>[], like: Record<string, unknown>[]): Record<string, unknown>[] {
  const keys = Object.keys(like[0] ?? {});
  const byId = new Map(documents.map((doc) => [doc.id, doc]));
  return like.map((wanted) => {
    const doc = byId.get(wanted.id) ?? {};
    return Object.fromEntries(keys.map((key) => [key, doc[key]]));
  });
}

/** After draining, Typesense holds exactly the documents the tables give. */
export async function assertInStep(t: Test, ctx: TypesenseContext, label: string): Promise<void> {
  await drained(ctx);
  const stories = await expectedStories(ctx);
  const authors = await expectedAuthors(ctx);
  t.equal(ctx.fake.documents(STORIES).length, stories.length, `${label}: as many story documents as stories`);
  t.equal(ctx.fake.documents(AUTHORS).length, authors.length, `${label}: as many author documents as authors`);
  t.same(project(ctx.fake.documents(STORIES), stories), stories, `${label}: story documents equal the tables`);
  t.same(project(ctx.fake.documents(AUTHORS), authors), authors, `${label}: author documents equal the tables`);
}
