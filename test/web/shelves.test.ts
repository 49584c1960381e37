/**
 * The shelf pages and the library's select mode (docs/decisions.md, "Shelves" and "Bulk edit")
 * through the real HTTP stack: forms posted as a browser without JavaScript posts them.
 */
import t from 'tap';
import { createStory } from '../helpers/factories.js';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';

const HOSTILE = '<script>alert(1)</script>';

/** A form post with repeated fields (checkboxes), as a browser sends it. */
function post(ctx: WebTestContext, url: string, fields: Array<[string, string]>) {
  return ctx.app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    cookies: { token: ctx.token },
  });
}

t.test('shelves: the list, a new shelf, its page, edit and delete', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createStory(ctx, { title: 'Sea story', tagNames: ['sea'] });
  await createStory(ctx, { title: 'Land story', tagNames: ['land'] });

  const empty = parseHtml((await ctx.page('/shelves')).body);
  t.equal(empty.text('h1'), 'Shelves');
  t.equal(empty.attr('.site-nav a[aria-current="page"]', 'href'), '/shelves', 'in the navigation');
  t.match(empty.text('.empty'), /No shelves yet/);

  const blank = await ctx.form('/shelves', { name: ' ', kind: 'manual' });
  t.equal(blank.statusCode, 400);
  t.match(parseHtml(blank.body).text('.error-summary'), /name/);
  const crossed = await ctx.form('/shelves', { name: 'Bad', kind: 'smart', minRating: '5', maxRating: '2' });
  t.equal(crossed.statusCode, 400);
  t.match(parseHtml(crossed.body).text('.field__error'), /greater than maxRating/, 'the search rule, beside its field');
  t.equal(parseHtml(crossed.body).attr('#new-shelf-name', 'value'), 'Bad', 'the form keeps what was typed');

  const made = await ctx.form('/shelves', { name: HOSTILE, kind: 'manual', description: HOSTILE });
  t.equal(made.statusCode, 303);
  const shelfUrl = String(made.headers.location);
  const shelf = await ctx.page(shelfUrl);
  t.equal(shelf.statusCode, 200);
  t.notMatch(shelf.body, /<script>alert/, 'names are escaped');
  t.equal(parseHtml(shelf.body).text('h1'), HOSTILE);
  t.match(parseHtml(shelf.body).text('.empty'), /This shelf is empty/);
  t.equal((await ctx.form('/shelves', { name: HOSTILE.toUpperCase(), kind: 'manual' })).statusCode, 409, 'a taken name is shown again with 409');

  const smart = await ctx.form('/shelves', { name: 'At sea', kind: 'smart', tags: 'sea' });
  t.equal(smart.statusCode, 303);
  const seaPage = parseHtml((await ctx.page(String(smart.headers.location))).body);
  t.same(seaPage.texts('.card-title'), ['Sea story'], "a smart shelf's page shows what its search finds");
  t.match(seaPage.attr('a[download]', 'href'), /^\/api\/shelves\/.+\/epub$/);

  const list = parseHtml((await ctx.page('/shelves')).body);
  t.same(list.texts('.shelf-list a'), [HOSTILE, 'At sea'].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));

  const editUrl = `${String(smart.headers.location)}/edit`;
  const edit = parseHtml((await ctx.page(editUrl)).body);
  t.equal(edit.attr('#edit-shelf-tags', 'value'), 'sea', 'the edit form holds the saved search');
  t.equal(edit.attr('input[name="kind"][value="smart"]', 'checked'), '');
  const saved = await ctx.form(editUrl, { name: 'On land', kind: 'smart', tags: 'land' });
  t.equal(saved.statusCode, 303);
  t.same(parseHtml((await ctx.page(String(saved.headers.location))).body).texts('.card-title'), ['Land story']);
  t.equal((await ctx.form(editUrl, { name: '', kind: 'smart' })).statusCode, 400);

  t.equal((await ctx.page(`${shelfUrl}/delete`)).statusCode, 200);
  const gone = await ctx.form(`${shelfUrl}/delete`, {});
  t.same([gone.statusCode, gone.headers.location], [303, '/shelves']);
  t.equal((await ctx.page(shelfUrl)).statusCode, 404);
});

t.test("the library's select mode changes the chosen stories through the bulk edit", async (t) => {
  const ctx = await buildWebTestApp(t);
  const a = await createStory(ctx, { title: 'Alpha' });
  const b = await createStory(ctx, { title: 'Beta' });
  const c = await createStory(ctx, { title: 'Gamma' });
  const shelfId = (await ctx.post('/api/shelves', { name: 'Picks', kind: 'manual' })).json().id as string;

  const plain = parseHtml((await ctx.page('/library')).body);
  t.equal(plain.all('input[name="ids"]').length, 0, 'no checkboxes outside the select mode');
  t.equal(plain.attr('.select-toggle', 'href'), '/library?select=1');
  const select = parseHtml((await ctx.page('/library?select=1&view=list')).body);
  t.equal(select.all('input[name="ids"][form="library-bulk"]').length, 3, 'a checkbox per story, of the bulk form');
  t.equal(select.attr('form#library-bulk', 'action'), '/stories/bulk');
  t.equal(select.attr('#bulk-add-shelf option[value="' + shelfId + '"]', 'value'), shelfId, 'manual shelves are offered');
  t.equal(select.attr('input[name="select"]', 'value'), '1', 'sorting keeps the select mode');

  const back = '/library?select=1&view=list';
  const applied = await post(ctx, '/stories/bulk', [
    ['back', back],
    ['ids', a.id],
    ['ids', b.id],
    ['addTag', 'Picked'],
    ['addShelf', shelfId],
    ['rating', '4'],
    ['favourite', 'true'],
    ['action', 'apply'],
  ]);
  t.same([applied.statusCode, applied.headers.location], [303, back], 'back to the page it came from');
  for (const id of [a.id, b.id]) t.match((await ctx.get(`/api/stories/${id}`)).json(), { rating: 4, tags: [{ name: 'picked' }] });
  t.match((await ctx.get(`/api/stories/${c.id}`)).json(), { rating: null, tags: [] }, 'an unchosen story is untouched');
  t.equal((await ctx.get(`/api/shelves/${shelfId}`)).json().storyCount, 2);

  const shelfPage = parseHtml((await ctx.page(`/shelves/${shelfId}`)).body);
  t.equal(shelfPage.all('#shelf-take-off option').length, 2, "a manual shelf's page offers its stories to take off");
  const takenOff = await ctx.form(`/shelves/${shelfId}/remove`, { storyId: a.id, back: `/shelves/${shelfId}` });
  t.same([takenOff.statusCode, takenOff.headers.location], [303, `/shelves/${shelfId}`]);
  t.equal((await ctx.get(`/api/shelves/${shelfId}`)).json().storyCount, 1);
  t.equal((await ctx.form(`/shelves/${shelfId}/remove`, { storyId: 'nope' })).statusCode, 400);

  const none = await post(ctx, '/stories/bulk', [['back', back], ['addTag', 'x'], ['action', 'apply']]);
  t.equal(none.statusCode, 400);
  t.match(parseHtml(none.body).text('.error-summary'), /ids/, 'a refusal names the problem');
  const unconfirmed = await post(ctx, '/stories/bulk', [['ids', c.id], ['action', 'delete']]);
  t.equal(unconfirmed.statusCode, 400);
  t.equal((await ctx.get(`/api/stories/${c.id}`)).statusCode, 200, 'no delete without the confirmation');
  const deleted = await post(ctx, '/stories/bulk', [['ids', c.id], ['confirmDelete', 'yes'], ['action', 'delete'], ['back', '//evil.example/']]);
  t.same([deleted.statusCode, deleted.headers.location], [303, '/library'], 'an outside back address is not followed');
  t.equal((await ctx.get(`/api/stories/${c.id}`)).statusCode, 404);
});
