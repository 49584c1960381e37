import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { validatorCompiler } from '../../src/validation.js';
import { StoryListQuery } from '../../src/schemas/story.js';
import { TagNameParams } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, createStory } from '../helpers/factories.js';

/**
 * docs/decisions.md, "Validation": text with a lone UTF-16 surrogate is refused in every part
 * (400 naming the field); URL fields take http(s) only; a multipart part declared JSON that is
 * not JSON is a 400 like every other bad request.
 */

const LONE = '\ud800';

async function expectFields(t: Test, response: Promise<LightMyRequestResponse>, fields: string[], label: string): Promise<Record<string, string>> {
  const res = await response;
  t.equal(res.statusCode, 400, `${label}: 400`);
  const body = res.json() as { error?: unknown; details?: Record<string, string> };
  t.type(body.error, 'string', `${label}: has an error message`);
  t.same(Object.keys(body.details ?? {}).sort(), [...fields].sort(), `${label}: details name ${fields.join(', ')}`);
  return body.details ?? {};
}

function formPart(boundary: string, name: string, value: string, contentType?: string): string {
  const type = contentType === undefined ? '' : `Content-Type: ${contentType}\r\n`;
  return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n${type}\r\n${value}\r\n`;
}

function putForm(ctx: TestContext, id: string, parts: Array<[name: string, value: string, contentType?: string]>) {
  const boundary = 'hostiletextboundary';
  const payload = parts.map(([name, value, type]) => formPart(boundary, name, value, type)).join('') + `--${boundary}--\r\n`;
  return ctx.request({
    method: 'PUT',
    url: `/api/authors/${id}`,
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
}

t.test('a lone surrogate in JSON text is a 400 naming the field, and nothing changes', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { title: 'Kept', tagNames: ['kept'] });
  const details = await expectFields(t, ctx.put(`/api/stories/${story.id}`, { tagNames: [LONE] }), ['tagNames'], 'tag name');
  t.match(details.tagNames, /surrogate/);
  await expectFields(t, ctx.put(`/api/stories/${story.id}`, { tagNames: [`a${LONE}b`, 'fine'] }), ['tagNames'], 'inside a tag name');
  await expectFields(t, ctx.post('/api/stories', { title: `x${LONE}`, summary: `\udc00` }), ['title', 'summary'], 'title and summary');
  await expectFields(t, ctx.post('/api/tags', { name: LONE }), ['name'], 'tag create');
  await expectFields(t, ctx.post('/api/authors', { name: 'A', urls: [`https://a.example/${LONE}`] }), ['urls'], 'author URL');
  t.same((await ctx.get(`/api/stories/${story.id}`)).json().tags.map((tag: { name: string }) => tag.name), ['kept'], 'tags unchanged');
  t.equal((await ctx.get('/api/tags')).json().totalElements, 1, 'no tag was created');

  const paired = await ctx.put(`/api/stories/${story.id}`, { tagNames: ['😀 emoji'] });
  t.equal(paired.statusCode, 200, 'a surrogate pair (an astral character) is well-formed');
});

t.test('a lone surrogate in a multipart text field is a 400 naming the field', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { name: 'Kept' });
  // A part declared JSON is parsed, so `"\ud800"` arrives as a lone surrogate.
  const details = await expectFields(t, putForm(ctx, author.id, [['name', '"\\ud800"', 'application/json']]), ['name'], 'form name');
  t.match(details.name, /surrogate/);
  t.equal((await ctx.get(`/api/authors/${author.id}`)).json().name, 'Kept');
});

t.test('query strings and path parameters are checked by the same validator', async (t) => {
  // Percent-decoding cannot give a lone surrogate (invalid UTF-8 is refused earlier), so the
  // validator is called directly with what a decoder might one day hand it.
  const query = validatorCompiler({ schema: StoryListQuery, httpPart: 'querystring', method: 'GET', url: '/api/stories' }) as ((data: unknown) => boolean) & {
    errors?: Array<{ instancePath: string }> | null;
  };
  t.notOk(query({ sortBy: 'title', extra: LONE }), 'a query holding a lone surrogate fails');
  t.same(query.errors?.map((error) => error.instancePath), ['/extra']);
  t.ok(query({ sortBy: 'title' }), 'a clean query passes');
  const params = validatorCompiler({ schema: TagNameParams, httpPart: 'params', method: 'GET', url: '/api/stories/tags/:tagName' }) as (data: unknown) => boolean;
  t.notOk(params({ tagName: `x${LONE}` }), 'a path parameter holding a lone surrogate fails');
});

t.test('a multipart part declared application/json that is not JSON is a 400 {error, details}', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { name: 'Kept' });
  const res = await putForm(ctx, author.id, [['notes', '{not json', 'application/json']]);
  t.equal(res.statusCode, 400);
  const body = res.json() as { error?: unknown; details?: Record<string, unknown> };
  t.type(body.error, 'string');
  t.type(body.details, 'object', 'details say what was wrong');
  t.equal((await ctx.get(`/api/authors/${author.id}`)).json().notes, null, 'nothing changed');
});

t.test('URL fields take http and https only', async (t) => {
  const ctx = await buildTestApp(t);
  const hostile = ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'ftp://x.example/f', 'x.example', ''];
  for (const url of hostile) {
    const label = JSON.stringify(url);
    const details = await expectFields(t, ctx.post('/api/stories', { title: 't', sourceUrl: url }), ['sourceUrl'], `sourceUrl ${label}`);
    t.match(details.sourceUrl, /http/, `sourceUrl ${label}: the message names the rule`);
    await expectFields(t, ctx.post('/api/authors', { name: 'A', urls: ['https://ok.example', url] }), ['urls'], `author urls ${label}`);
  }
  t.equal((await ctx.get('/api/stories')).json().totalElements, 0, 'no story was created');

  const story = await createStory(ctx, { sourceUrl: 'https://example.com/story?x=1#y' });
  t.equal(story.sourceUrl, 'https://example.com/story?x=1#y');
  await expectFields(t, ctx.put(`/api/stories/${story.id}`, { sourceUrl: 'javascript:alert(1)' }), ['sourceUrl'], 'update sourceUrl');
  t.equal((await ctx.put(`/api/stories/${story.id}`, { sourceUrl: 'HTTP://EXAMPLE.COM/A' })).statusCode, 200, 'the scheme is case-insensitive');

  const author = await createAuthor(ctx, { urls: ['http://a.example'] });
  await expectFields(t, ctx.post(`/api/authors/${author.id}/urls`, { url: 'javascript:alert(1)' }), ['url'], 'add URL');
  await expectFields(t, ctx.put(`/api/authors/${author.id}`, { urls: ['data:,x'] }), ['urls'], 'JSON update urls');
  await expectFields(t, putForm(ctx, author.id, [['urls', 'vbscript:msgbox(1)']]), ['urls'], 'form urls');
  t.same((await ctx.get(`/api/authors/${author.id}`)).json().urls, ['http://a.example'], 'the URLs are unchanged');
});

t.test('rows stored before the rule still read back and can be cleaned up', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const author = await createAuthor(ctx, { urls: ['https://a.example'] });
  const sqlite = ctx.app.db.$client;
  sqlite.prepare('UPDATE stories SET source_url = ? WHERE id = ?').run('javascript:alert(1)', story.id);
  sqlite.prepare('UPDATE author_urls SET url = ? WHERE author_id = ?').run('javascript:alert(2)', author.id);
  const read = await ctx.get(`/api/stories/${story.id}`);
  t.equal(read.statusCode, 200);
  t.equal(read.json().sourceUrl, 'javascript:alert(1)', 'the old value is readable as stored');
  t.same((await ctx.get(`/api/authors/${author.id}`)).json().urls, ['javascript:alert(2)']);
  const removed = await ctx.del(`/api/authors/${author.id}/urls`, { url: 'javascript:alert(2)' });
  t.equal(removed.statusCode, 200, 'an old URL can be removed by its text');
  t.same(removed.json().urls, []);
  t.equal((await ctx.put(`/api/stories/${story.id}`, { sourceUrl: null })).json().sourceUrl, null, 'an old sourceUrl can be cleared');
});
