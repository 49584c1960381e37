/**
 * The pages' form kit (src/web/form.ts) and the one body check the API and the story form share
 * (`checkBody`, src/validation.ts).
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { BadRequest, Conflict, NotFound, type ErrorDetails } from '../../src/errors.js';
import { formFields, formRefusal } from '../../src/web/form.js';
import { checkBody } from '../../src/validation.js';

t.test('formFields reads the first value, every value of a repeated field, and nothing that is not a sent string', async (t) => {
  // What @fastify/formbody makes of `name=a&scopes=read&scopes=progress&empty=`.
  const form = formFields({ name: 'a', scopes: ['read', 'progress'], empty: '' });
  t.equal(form.first('name'), 'a');
  t.same(form.all('name'), ['a']);
  t.equal(form.first('scopes'), 'read', 'a repeated field: its first value');
  t.same(form.all('scopes'), ['read', 'progress'], 'in the order sent');
  t.equal(form.first('empty'), '', 'an empty field is sent, not missing');
  t.equal(form.first('missing'), undefined);
  t.same(form.all('missing'), []);
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    t.equal(form.first(name), undefined, `${name} is not a field unless sent`);
  }
  t.equal(formFields(JSON.parse('{"__proto__": "x"}')).first('__proto__'), 'x', 'but a field of that name that was sent is read');
  t.same(formFields({ mixed: [1, 'two', null, { three: 3 }] }).all('mixed'), ['two'], 'only strings');
  t.equal(formFields({ count: 3 }).first('count'), undefined);
  for (const body of [undefined, null, 'name=a', ['a'], 42]) {
    t.equal(formFields(body).first('name'), undefined, `no fields in ${JSON.stringify(body)}`);
  }
});

t.test('formRefusal keeps a 400 or 409 for the form and throws anything else', async (t) => {
  t.same(formRefusal(new BadRequest('Validation failed', { title: 'must not be blank' }), 'title'), { status: 400, details: { title: 'must not be blank' } });
  t.same(formRefusal(new Conflict('A tag with this name already exists'), 'name'), { status: 409, details: { name: 'A tag with this name already exists' } }, 'no details: the message goes on the field named');
  const missing = new NotFound('Story not found');
  t.throws(() => formRefusal(missing, 'title'), missing, 'a 404 is for the error page');
  const crash = new Error('disk full');
  t.throws(() => formRefusal(crash, 'title'), crash);
});

// Unknown fields are dropped, as from the API's bodies (`additionalProperties: false` with Ajv's `removeAdditional`).
const Body = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 10 }),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

t.test('checkBody names the schema offences and the rules offences of the fields that passed, in one answer', async (t) => {
  const seen: unknown[] = [];
  const rules = (body: { name?: string; count?: number }): ErrorDetails => {
    seen.push({ ...body });
    return body.name === 'taken' ? { name: 'is taken' } : {};
  };
  const body = { name: 'taken', count: -1 };
  const checked = checkBody(Body, rules, body);
  t.equal(checked.body, undefined);
  t.same(checked.issues, { count: 'must be at least 0', name: 'is taken' });
  t.same(seen, [{ name: 'taken' }], 'the rules see only the fields the schema accepted');
  t.same(body, { name: 'taken', count: -1 }, "the caller's object is not changed");

  t.same(checkBody(Body, rules, { name: '', count: 2 }).issues, { name: 'must not be empty' }, 'a field the schema refused is not given to the rules');
  t.same(checkBody(Body, undefined, { count: 'two' }).issues, { name: 'is required', count: 'must be an integer' }, 'without rules: the schema alone');
  t.same(checkBody(Body, rules, { name: 'taken' }).issues, { name: 'is taken' }, 'the rules alone, when the schema passes');
});

t.test('checkBody gives a valid body back typed, without the fields the schema does not know', async (t) => {
  const sent = { name: 'ok', count: 3, extra: 'dropped' };
  const checked = checkBody(Body, () => ({}), sent);
  t.same(checked.issues, undefined);
  t.same(checked.body, { name: 'ok', count: 3 });
  t.equal(checked.body?.count, 3);
  t.equal(sent.extra, 'dropped', "the caller's object keeps it");
});
