/**
 * A story search hit names the chapter its words were found in (docs/api.md, "Fields › Search
 * results"; docs/decisions.md, "Search"), through the real HTTP stack on the embedded engine.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';

interface Hit {
  id: string;
  snippet: string | null;
  chapter: { index: number; title: string } | null;
}

t.test('a hit says in which chapter the words matched, or null when they matched elsewhere', async (t) => {
  const ctx = await buildTestApp(t);
  const work = await createStory(ctx, {
    title: 'Harbour nights',
    summary: 'A keeper and the sea.',
    chapters: [
      { title: 'Dusk', contentHtml: '<p>The lamp was lit at dusk.</p>' },
      { title: 'Midnight', contentHtml: `<p>${'Waves broke on the rocks. '.repeat(40)}</p>` },
      { title: 'Dawn', contentHtml: '<p>At dawn a cormorant landed on the rail.</p>' },
    ],
  });
  const flat = await createStory(ctx, { title: 'Inland', contentHtml: '<p>A cormorant far from the coast.</p>' });

  const search = async (query: string) => {
    const res = await ctx.get(`/api/stories/search?query=${encodeURIComponent(query)}`);
    t.equal(res.statusCode, 200);
    return (res.json() as { results: Hit[] }).results;
  };

  const birds = await search('cormorant');
  t.same(birds.find((hit) => hit.id === work.id)?.chapter, { index: 3, title: 'Dawn' }, 'the third chapter, after a long second one');
  t.same(birds.find((hit) => hit.id === flat.id)?.chapter, { index: 1, title: '' }, 'a one-chapter story: its only chapter');
  t.match(birds.find((hit) => hit.id === work.id)?.snippet, /<mark>cormorant<\/mark>/);

  t.same((await search('lamp'))[0]?.chapter, { index: 1, title: 'Dusk' });
  t.same((await search('midnight'))[0]?.chapter, { index: 2, title: 'Midnight' }, "a chapter's title is in its chapter");
  t.same((await search('keeper'))[0]?.chapter, null, 'matched in the summary: no chapter');
  t.ok((await search('*')).every((hit) => hit.chapter === null), 'no words, no chapter');

  // The index answers the chapter route the hit leads to.
  const chapter = await ctx.get(`/api/stories/${work.id}/chapters/3`);
  t.match(chapter.json(), { index: 3, title: 'Dawn', contentPlain: /cormorant/ });
});
