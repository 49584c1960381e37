/**
 * Helpers for tests of the pages (docs/web.md, "Testing"): an app with a logged-in cookie, form
 * posts, and a small HTML query API over htmlparser2 (tag, #id, .class, [attr], [attr="v"], [attr^="v"], [attr*="v"],
 * descendant and `>` child combinators, comma lists).
 */
import type { Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { parseDocument } from 'htmlparser2';
import { findAll, getAttributeValue, textContent } from 'domutils';
import type { Element } from 'domhandler';
import { buildTestApp, type TestContext } from './app.js';

export interface WebTestContext extends TestContext {
  /** A GET with the token cookie (and any others given). */
  page: (url: string, cookies?: Record<string, string>) => Promise<LightMyRequestResponse>;
  /** A urlencoded form post with the token cookie, as a browser on this server sends it. */
  form: (url: string, fields: Record<string, string>, cookies?: Record<string, string>) => Promise<LightMyRequestResponse>;
  /** The same without the token: what a logged-out browser sends. */
  anonymous: {
    page: (url: string, cookies?: Record<string, string>) => Promise<LightMyRequestResponse>;
    form: (url: string, fields: Record<string, string>, headers?: Record<string, string>) => Promise<LightMyRequestResponse>;
  };
}

const FORM = 'application/x-www-form-urlencoded';

/** `buildTestApp` plus page and form helpers, logged in and logged out. */
export async function buildWebTestApp(t: Test, env: Record<string, string> = {}): Promise<WebTestContext> {
  const ctx = await buildTestApp(t, env);
  const { app, token } = ctx;
  const body = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  return {
    ...ctx,
    page: (url, cookies = {}) => app.inject({ method: 'GET', url, cookies: { token, ...cookies } }),
    form: (url, fields, cookies = {}) =>
      app.inject({ method: 'POST', url, payload: body(fields), headers: { 'content-type': FORM }, cookies: { token, ...cookies } }),
    anonymous: {
      page: (url, cookies = {}) => app.inject({ method: 'GET', url, cookies }),
      form: (url, fields, headers = {}) => app.inject({ method: 'POST', url, payload: body(fields), headers: { 'content-type': FORM, ...headers } }),
    },
  };
}

/**
 * Holds the app's reindexes until the returned function is called, so a test can look at one
 * while it runs (queued, running, the page's progress); the real reindex then runs.
 */
export function holdReindex(t: Test, ctx: TestContext): () => void {
  const engine = ctx.app.searchEngine;
  const real = engine.reindex.bind(engine);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  engine.reindex = async () => {
    await held;
    return real();
  };
  t.teardown(() => {
    engine.reindex = real;
  });
  return () => release();
}

export interface Html {
  /** Every element matching `selector`, in document order. */
  all: (selector: string) => Element[];
  /** The first match, or undefined. */
  one: (selector: string) => Element | undefined;
  /** The text of the first match with whitespace collapsed ('' when nothing matches). */
  text: (selector: string) => string;
  /** An attribute of the first match. */
  attr: (selector: string, name: string) => string | undefined;
  /** The text of every match. */
  texts: (selector: string) => string[];
}

interface Compound {
  tag?: string;
  id?: string;
  classes: string[];
  attrs: Array<{ name: string; op: '=' | '^=' | '*=' | undefined; value?: string }>;
}

type Step = { compound: Compound; combinator: ' ' | '>' };

function parseCompound(text: string): Compound {
  const compound: Compound = { classes: [], attrs: [] };
  const pattern = /([a-zA-Z][\w-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:([\^*]?=)(?:"([^"]*)"|'([^']*)'|([^\]]*)))?\]|(\S)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[1] !== undefined) compound.tag = match[1].toLowerCase();
    else if (match[2] !== undefined) compound.id = match[2];
    else if (match[3] !== undefined) compound.classes.push(match[3]);
    else if (match[4] !== undefined) {
      compound.attrs.push({ name: match[4], op: match[5] as '=' | '^=' | '*=' | undefined, value: match[6] ?? match[7] ?? match[8] });
    } else throw new Error(`unsupported selector syntax at "${match[9]}" in "${text}"`);
  }
  return compound;
}

function parseSelector(selector: string): Step[] {
  const tokens = selector.replace(/\s*>\s*/g, ' > ').trim().split(/\s+(?=(?:[^"\]]*\[[^\]]*\])*[^\]]*$)/);
  const steps: Step[] = [];
  let combinator: ' ' | '>' = ' ';
  for (const token of tokens) {
    if (token === '>') {
      combinator = '>';
      continue;
    }
    steps.push({ compound: parseCompound(token), combinator });
    combinator = ' ';
  }
  return steps;
}

function matches(element: Element, compound: Compound): boolean {
  if (compound.tag !== undefined && element.name !== compound.tag) return false;
  if (compound.id !== undefined && getAttributeValue(element, 'id') !== compound.id) return false;
  const classes = (getAttributeValue(element, 'class') ?? '').split(/\s+/);
  if (!compound.classes.every((name) => classes.includes(name))) return false;
  return compound.attrs.every(({ name, op, value }) => {
    const actual = getAttributeValue(element, name);
    if (actual === undefined || op === undefined || value === undefined) return actual !== undefined;
    return op === '=' ? actual === value : op === '^=' ? actual.startsWith(value) : actual.includes(value);
  });
}

function parentElement(element: Element): Element | undefined {
  const parent = element.parent;
  return parent !== null && parent.type === 'tag' ? (parent as Element) : undefined;
}

/** Whether `element` matches the steps, right to left. */
function matchesSteps(element: Element, steps: Step[], index: number): boolean {
  const step = steps[index]!;
  if (!matches(element, step.compound)) return false;
  if (index === 0) return true;
  let ancestor = parentElement(element);
  if (step.combinator === '>') return ancestor !== undefined && matchesSteps(ancestor, steps, index - 1);
  while (ancestor !== undefined) {
    if (matchesSteps(ancestor, steps, index - 1)) return true;
    ancestor = parentElement(ancestor);
  }
  return false;
}

/** Parses an HTML page for querying. */
export function parseHtml(body: string): Html {
  const document = parseDocument(body);
  const elements = findAll(() => true, document.children);
  const all = (selector: string) => {
    const lists = selector.split(',').map((part) => parseSelector(part));
    return elements.filter((element) => lists.some((steps) => matchesSteps(element, steps, steps.length - 1)));
  };
  const squash = (element: Element) => textContent(element).replace(/\s+/g, ' ').trim();
  return {
    all,
    one: (selector) => all(selector)[0],
    text: (selector) => {
      const found = all(selector)[0];
      return found === undefined ? '' : squash(found);
    },
    attr: (selector, name) => {
      const found = all(selector)[0];
      return found === undefined ? undefined : getAttributeValue(found, name);
    },
    texts: (selector) => all(selector).map(squash),
  };
}
