import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getAuthor } from '../../authors/service.js';
import { getSeries } from '../../series/service.js';
import { IdParams, PageQuery, Rating, Uuid, sortedPageQuery } from '../../schemas/common.js';
import { STORY_SORT_KEYS } from '../../schemas/story.js';
import { TAG_KIND_FIELDS } from '../../schemas/tag.js';
import { mostUsedTagsByKind } from '../../tags/service.js';
import { ReadingStatus } from '../../schemas/reading-status.js';
import { countStories } from '../../stories/page-queries.js';
import { resolveStoryFilter, seriesStoryCards, storyCardPage, tagStoryCardPage } from '../../stories/list-service.js';
import { READING_STATUSES } from '../../schemas/reading-status.js';
import { manualShelfChoices } from '../../shelves/service.js';
import { render, template } from '../render.js';
import { bulkEditRoutes } from './bulk-routes.js';
import { authorView, LIBRARY_KIND_LINKS, libraryView, seriesView, tagView, type AuthorView, type LibraryView, type SeriesView, type TagView } from './view.js';

const LIBRARY = template<LibraryView>('library/library');
const AUTHOR = template<AuthorView>('library/author');
const SERIES = template<SeriesView>('library/series');
const TAG = template<TagView>('library/tag');

const TagName = Type.Optional(Type.String({ minLength: 1, maxLength: 255 }));

/** The API's story list query (docs/api.md, "Sorting") plus the page's layout and filters, one tag name per kind among them. */
const LibraryQuery = sortedPageQuery(STORY_SORT_KEYS, {
  view: Type.Optional(Type.Union([Type.Literal('grid'), Type.Literal('list')])),
  author: Type.Optional(Uuid),
  series: Type.Optional(Uuid),
  tag: TagName,
  [TAG_KIND_FIELDS.fandom.one]: TagName,
  [TAG_KIND_FIELDS.relationship.one]: TagName,
  [TAG_KIND_FIELDS.character.one]: TagName,
  [TAG_KIND_FIELDS.warning.one]: TagName,
  [TAG_KIND_FIELDS.category.one]: TagName,
  [TAG_KIND_FIELDS.rating.one]: TagName,
  [TAG_KIND_FIELDS.freeform.one]: TagName,
  minRating: Type.Optional(Rating),
  readingStatus: Type.Optional(ReadingStatus),
  favourite: Type.Optional(Type.Boolean()),
  select: Type.Optional(Type.Literal('1')),
});

/**
 * The browse pages (docs/decisions.md, "Browse pages"): `/library`, `/authors/{id}`,
 * `/series/{id}`, `/tags/{name}`. Each calls the story list services the API calls, as cards.
 */
export const libraryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(bulkEditRoutes);
  // A GET form sends the fields left blank as `name=`: they mean "no filter", not a bad value.
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown>;
    for (const [name, value] of Object.entries(query)) if (value === '') delete query[name];
  });

  app.get('/library', { schema: { querystring: LibraryQuery } }, async (request, reply) => {
    const query = request.query;
    const resolved = resolveStoryFilter(app.db, query);
    const { cards, total } = storyCardPage(app.db, resolved.filter, query);
    const emptyLibrary = total === 0 && countStories(app.db, { kind: 'all' }) === 0;
    const bulk = query.select === '1' ? { shelves: manualShelfChoices(app.db), ratings: ['1', '2', '3', '4', '5'], readingStatuses: [...READING_STATUSES] } : undefined;
    const kindLists = mostUsedTagsByKind(app.db, LIBRARY_KIND_LINKS);
    return render(reply, LIBRARY, libraryView(query, cards, total, resolved, emptyLibrary, bulk, kindLists));
  });

  app.get('/authors/:id', { schema: { params: IdParams, querystring: PageQuery } }, async (request, reply) => {
    const author = getAuthor(app.db, request.params.id);
    const { cards } = storyCardPage(app.db, { authorId: author.id }, { ...request.query, sortBy: 'createdAt' });
    return render(reply, AUTHOR, authorView(author, cards, request.query.page, request.query.size));
  });

  app.get('/series/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const found = getSeries(app.db, request.params.id);
    return render(reply, SERIES, seriesView(found, seriesStoryCards(app.db, found.id)));
  });

  app.get('/tags/:name', { schema: { params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }), querystring: PageQuery } }, async (request, reply) => {
    const { page, size } = request.query;
    const { cards, total, name } = tagStoryCardPage(app.db, request.params.name, { page, size });
    return render(reply, TAG, tagView(name, cards, total, page, size));
  });
};
