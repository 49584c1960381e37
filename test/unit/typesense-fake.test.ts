/**
 * The fake Typesense speaks the protocol the official client expects (checked through that
 * client, so its request shapes and error mapping are exercised for real): API key, collections
 * and aliases with their error statuses, JSONL import with per-line results, search parameters
 * and their limits, and the injected faults.
 */
import t, { type Test } from 'tap';
import { Client, Errors } from 'typesense';
import { startFakeTypesense, type FakeTypesense } from '../helpers/fake-typesense/index.js';

function clientFor(fake: FakeTypesense, apiKey = fake.apiKey): Client {
  return new Client({ nodes: [{ url: fake.url }], apiKey, numRetries: 0, connectionTimeoutSeconds: 2, logLevel: 'silent' });
}

const schema = {
  name: 'books_1',
  fields: [
    { name: 'title', type: 'string' as const },
    { name: 'titleKey', type: 'string' as const, sort: true },
    { name: 'tags', type: 'string[]' as const, facet: true },
    { name: 'rating', type: 'int32' as const, optional: true },
    { name: 'year', type: 'int32' as const },
    { name: 'note', type: 'string' as const, optional: true, index: false },
  ],
  default_sorting_field: 'year',
};

async function rejects(t: Test, promise: Promise<unknown>, status: number, message: RegExp | undefined, label: string): Promise<void> {
  try {
    await promise;
    t.fail(`${label}: expected HTTP ${status}`);
  } catch (error) {
    t.equal((error as { httpStatus?: number }).httpStatus, status, label);
    if (message !== undefined) t.match((error as Error).message, message, label);
  }
}

t.test('API key, collections and aliases', async (t) => {
  const fake = await startFakeTypesense(t);
  const client = clientFor(fake);
  t.same(await client.health.retrieve(), { ok: true });
  t.same(await clientFor(fake, 'wrong').health.retrieve(), { ok: true }, '/health needs no key');
  await rejects(t, clientFor(fake, 'wrong').collections().retrieve(), 401, /x-typesense-api-key/, 'a wrong key is 401');

  const created = await client.collections().create(schema);
  t.equal(created.name, 'books_1');
  t.equal(created.num_documents, 0);
  await rejects(t, client.collections().create(schema), 409, /already exists/, 'a second collection of the name is 409');
  await rejects(t, client.collections().create({ name: 'bad', fields: [{ name: 'x', type: 'nope' as 'string' }] }), 400, /invalid data type/, 'a bad type is 400');
  await rejects(
    t,
    client.collections().create({ name: 'bad2', fields: [{ name: 'y', type: 'int32', optional: true }], default_sorting_field: 'y' }),
    400,
    /optional/,
    'an optional default sorting field is 400',
  );
  await rejects(t, client.collections('missing').retrieve(), 404, undefined, 'a missing collection is 404');

  await rejects(t, client.aliases('books').retrieve(), 404, undefined, 'a missing alias is 404');
  await rejects(t, client.aliases().upsert('books', { collection_name: 'nope' }), 404, undefined, 'an alias to a missing collection is 404');
  t.same(await client.aliases().upsert('books', { collection_name: 'books_1' }), { name: 'books', collection_name: 'books_1' });
  t.equal((await client.collections('books').retrieve()).name, 'books_1', 'an alias resolves in collection paths');
  t.same(await client.aliases().retrieve(), { aliases: [{ name: 'books', collection_name: 'books_1' }] });
  await client.collections('books_1').delete();
  await rejects(t, client.collections('books_1').delete(), 404, undefined, 'dropping twice is 404');
});

t.test('import answers per line, 200 even when lines fail', async (t) => {
  const fake = await startFakeTypesense(t);
  const client = clientFor(fake);
  await client.collections().create(schema);
  await client.aliases().upsert('books', { collection_name: 'books_1' });
  fake.failImports({ when: (doc) => doc.id === 'c', times: 1, error: 'Injected' });
  const lines = [
    JSON.stringify({ id: 'a', title: 'Alpha', titleKey: 'alpha', tags: ['x'], year: 2001, rating: 3 }),
    JSON.stringify({ id: 'b', title: 'Beta', titleKey: 'beta', tags: [], year: 1999 }),
    JSON.stringify({ id: 'c', title: 'Gamma', titleKey: 'gamma', tags: ['x', 'y'], year: 2010 }),
    JSON.stringify({ id: 'd', title: 'Delta', titleKey: 'delta', tags: [] }),
    JSON.stringify({ id: 'e', title: 7, titleKey: 'e', tags: [], year: 1 }),
    '{not json',
  ];
  const answer = await client.collections('books').documents().import(lines.join('\n'), { action: 'upsert' });
  const results = answer.split('\n').map((line) => JSON.parse(line) as { success: boolean; error?: string });
  t.same(results.map((result) => result.success), [true, true, false, false, false, false]);
  t.equal(results[2]?.error, 'Injected');
  t.match(results[3]?.error, /`year` has been declared in the schema, but is not found/);
  t.match(results[4]?.error, /`title` must be a string/);
  t.equal(results[5]?.error, 'Bad JSON.');
  t.same(fake.documents('books').map((doc) => doc.id), ['a', 'b']);

  const again = await client.collections('books').documents().import(lines[2] as string, { action: 'upsert' });
  t.same(JSON.parse(again), { success: true }, 'the fault was used up');
  const create = await client.collections('books').documents().import(lines[0] as string, { action: 'create' });
  t.match(JSON.parse(create), { success: false, error: /already exists/ }, 'create does not replace');
  await client.collections('books').documents('a').delete();
  await rejects(t, client.collections('books').documents('a').delete(), 404, /Could not find a document/, 'deleting a missing document is 404');
});

t.test('search: filters, sorts, pages, highlights and limits', async (t) => {
  const fake = await startFakeTypesense(t);
  const client = clientFor(fake);
  await client.collections().create(schema);
  const docs = [
    { id: '1', title: 'The Old Lantern', titleKey: 'the old lantern', tags: ['Sea', 'night'], year: 2001, rating: 4 },
    { id: '2', title: 'Lanterns at Sea', titleKey: 'lanterns at sea', tags: ['sea'], year: 1990 },
    { id: '3', title: 'Café Nights', titleKey: 'café nights', tags: ['night'], year: 2020, rating: 2 },
  ];
  await client.collections('books_1').documents().import(docs, { action: 'upsert' });
  type Result = { found: number; page: number; hits?: { document: Record<string, unknown> & { id: string }; highlights?: unknown }[] };
  const search = (params: Record<string, unknown>) => client.collections('books_1').documents().search(params as never) as unknown as Promise<Result>;

  const lantern = await search({ q: 'lantern', query_by: 'title', sort_by: 'year:asc' });
  t.equal(lantern.found, 2, 'the last word is a prefix by default');
  t.same(lantern.hits?.map((hit) => hit.document.id), ['2', '1']);
  t.same(lantern.hits?.[1]?.highlights, [{ field: 'title', matched_tokens: ['Lantern'], snippet: 'The Old <mark>Lantern</mark>' }]);
  const exact = await search({ q: 'lantern', query_by: 'title', prefix: false });
  t.equal(exact.found, 1, 'prefix=false matches whole words');
  t.equal((await search({ q: 'cafe', query_by: 'title' })).found, 1, 'diacritics are folded');
  const across = await search({ q: 'lantern sea', query_by: 'title,tags' });
  t.same(across.hits?.map((hit) => hit.document.id), ['1'], 'words may match in different fields; only the last is a prefix');

  const rated = await search({ q: '*', filter_by: 'rating:>=3 && rating:<=5' });
  t.same(rated.hits?.map((hit) => hit.document.id), ['1'], 'a missing value never passes a range');
  const tagged = await search({ q: '*', filter_by: 'tags:=`SEA` && tags:=night' });
  t.same(tagged.hits?.map((hit) => hit.document.id), ['1'], 'exact string filters ignore case, arrays need all clauses');
  const any = await search({ q: '*', filter_by: 'titleKey:=[`lanterns at sea`, `café nights`]', sort_by: 'titleKey:desc' });
  t.same(any.hits?.map((hit) => hit.document.id), ['2', '3']);
  const byRating = await search({ q: '*', sort_by: 'rating:asc' });
  t.same(byRating.hits?.map((hit) => hit.document.id), ['3', '1', '2'], 'missing numbers sort last');
  const byRatingDesc = await search({ q: '*', sort_by: 'rating:desc' });
  t.same(byRatingDesc.hits?.map((hit) => hit.document.id), ['1', '3', '2'], 'in both directions');
  const paged = await search({ q: '*', sort_by: 'year:desc', page: 2, per_page: 2 });
  t.same([paged.page, paged.found, paged.hits?.map((hit) => hit.document.id)], [2, 3, ['2']], 'pages are 1-based');
  const trimmed = await search({ q: '*', include_fields: 'title', per_page: 1 });
  t.same(Object.keys(trimmed.hits?.[0]?.document ?? {}), ['title']);

  await rejects(t, search({ q: '*', per_page: 251 }), 422, /250/, 'per_page over 250 is 422');
  await rejects(t, search({ q: '*', filter_by: 'nope:=1' }), 404, /filter field named `nope`/, 'an unknown filter field is 404');
  await rejects(t, search({ q: '*', filter_by: 'rating:>=' }), 400, /parse the filter/, 'a broken filter is 400');
  await rejects(t, search({ q: '*', sort_by: 'title:asc' }), 404, /for sorting/, 'a string field without sort: true cannot sort');
  await rejects(t, search({ q: '*', sort_by: 'year:asc,rating:asc,titleKey:asc,_text_match:desc' }), 400, undefined, 'more than 3 sort fields is 400');
  await rejects(t, search({ q: 'x', query_by: 'note' }), 404, /named `note`/, 'an unindexed field cannot be queried');
  await rejects(t, client.collections('nope').documents().search({ q: '*' } as never), 404, undefined, 'searching a missing collection is 404');
});

t.test('faults: down, unavailable, slow', async (t) => {
  const fake = await startFakeTypesense(t);
  const client = clientFor(fake);
  await fake.down('unavailable');
  await rejects(t, client.collections().retrieve(), 503, /Not Ready/, 'an unavailable node answers 503');
  await rejects(t, client.health.retrieve(), 503, undefined, 'health too');
  await fake.up();
  await fake.down('refused');
  try {
    await client.health.retrieve();
    t.fail('expected a refused connection');
  } catch (error) {
    t.notOk(error instanceof Errors.TypesenseError && error.httpStatus !== undefined, 'no HTTP answer at all');
  }
  await fake.up();
  t.same(await client.health.retrieve(), { ok: true }, 'back on the same port');
  fake.slow(200);
  const started = Date.now();
  await client.health.retrieve();
  t.ok(Date.now() - started >= 190, 'answers are delayed');
});

t.test('typo tolerance, phrases and facets follow Typesense’s documented defaults', async (t) => {
  const fake = await startFakeTypesense(t);
  const client = clientFor(fake);
  await client.collections().create(schema);
  const docs = [
    { id: '1', title: 'The lighthouse keeper', titleKey: 'a', tags: ['sea', 'night'], year: 2001, rating: 4 },
    { id: '2', title: 'A dog and its collar', titleKey: 'b', tags: ['sea'], year: 1990, rating: 4 },
    { id: '3', title: 'Fog over the bay', titleKey: 'c', tags: ['night'], year: 2020, rating: 2 },
  ];
  await client.collections('books_1').documents().import(docs, { action: 'upsert' });
  type Result = { found: number; hits?: { document: { id: string }; highlights?: { matched_tokens?: unknown }[] }[]; facet_counts?: unknown[] };
  const search = (params: Record<string, unknown>) => client.collections('books_1').documents().search(params as never) as unknown as Promise<Result>;
  const ids = async (params: Record<string, unknown>) => (await search({ query_by: 'title', ...params })).hits?.map((hit) => hit.document.id);

  t.same(await ids({ q: 'lighthuose' }), ['1'], 'one swap is one typo, on by default');
  t.same(await ids({ q: 'lihgthuose' }), ['1'], 'two typos for words of 7 letters or more, by default');
  t.same(await ids({ q: 'lihgthuose', num_typos: 1 }), [], 'num_typos bounds them');
  t.same(await ids({ q: 'colar', prefix: false }), ['2'], 'one typo from 4 letters');
  t.same(await ids({ q: 'colar', prefix: false, min_len_1typo: 6 }), [], 'min_len_1typo raises that');
  t.same(await ids({ q: 'fgo' }), [], 'no typo under 4 letters');
  t.same(await ids({ q: 'lighthuose', num_typos: 0 }), [], 'num_typos 0: none');
  t.same(await ids({ q: 'lighthuose', typo_tokens_threshold: 0 }), [], 'typos are tried only while hits are under typo_tokens_threshold');
  t.same(await ids({ q: 'collar', prefix: false }), ['2']);
  t.same(await ids({ q: '"lighthuose"' }), [], 'a quoted phrase has no typos');
  t.same(await ids({ q: '"the lighthouse" keper' }), ['1'], 'a phrase beside a misspelt word');
  t.same(await ids({ q: '"lighthouse the"' }), [], 'a phrase keeps its order');
  const typo = await search({ q: 'lighthuose', query_by: 'title' });
  t.same(typo.hits?.[0]?.highlights?.[0]?.matched_tokens, ['lighthouse'], 'the highlight names the word matched');

  const faceted = await search({ q: '*', facet_by: 'tags', max_facet_values: 1 });
  t.same(faceted.facet_counts, [{ counts: [{ count: 2, highlighted: 'night', value: 'night' }], field_name: 'tags', sampled: false, stats: { total_values: 2 } }], 'most first, ties by value, max_facet_values');
  const filtered = await search({ q: 'fog', query_by: 'title', facet_by: 'tags', per_page: 1 });
  t.same((filtered.facet_counts?.[0] as { counts: unknown[] }).counts, [{ count: 1, highlighted: 'night', value: 'night' }], 'counted over the hits');
  await rejects(t, search({ q: '*', facet_by: 'rating' }), 404, /facet field named `rating`/, 'a field without facet: true cannot be a facet');
});
