import t from 'tap';
import { writeTransaction } from '../../src/db/transaction.js';
import { StoryUpdateList } from '../../src/schemas/source.js';
import { insertUpdate } from '../../src/import/url/source-rows.js';
import { buildTestApp } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';

t.test('GET /api/stories/{id}/updates: the log newest first, bounded; 404 for an unknown story', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const empty = await ctx.get(`/api/stories/${story.id}/updates`);
  t.equal(empty.statusCode, 200);
  t.same(empty.json(), { updates: [] });
  writeTransaction(ctx.app.db, (tx) => {
    insertUpdate(tx, { storyId: story.id, at: '2026-01-01T00:00:00.000Z', origin: 'import', sourceUrl: 'https://archive.example/works/1', details: { added: ['One', 'Two'], updated: [], kept: [], gone: [] } });
    insertUpdate(tx, { storyId: story.id, at: '2026-01-02T00:00:00.000Z', origin: 'schedule', sourceUrl: 'https://archive.example/works/1', details: { added: ['Three'], updated: ['Two'], kept: ['One'], gone: [] } });
  });
  const listed = await ctx.get(`/api/stories/${story.id}/updates`);
  assertMatches(t, StoryUpdateList, listed.json());
  const updates = listed.json().updates;
  t.same(
    updates.map((update: Record<string, unknown>) => [update.origin, update.addedChapters, update.updatedChapters, update.keptChapters, update.goneChapters]),
    [
      ['schedule', 1, 1, 1, 0],
      ['import', 2, 0, 0, 0],
    ],
  );
  t.same(updates[0].details, { added: ['Three'], updated: ['Two'], kept: ['One'], gone: [] });
  t.equal((await ctx.get(`/api/stories/${story.id}/updates?limit=1`)).json().updates.length, 1);
  t.equal((await ctx.get(`/api/stories/${story.id}/updates?limit=101`)).statusCode, 400);
  t.equal((await ctx.get(`/api/stories/${MISSING_ID}/updates`)).statusCode, 404);
});
