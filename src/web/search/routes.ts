import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { answerStorySearch } from '../../search/service.js';
import { popularTags } from '../../tags/service.js';
import { render, template } from '../render.js';
import { asksForResults, dropBlankFields, SearchPageQuery, SUGGESTION_COUNT, SuggestionPageQuery, toStorySearchQuery } from './query.js';
import { searchResultsView, searchView, suggestionsView, type SearchView, type SuggestionsView } from './view.js';

const SEARCH_TEMPLATE = template<SearchView>('search/search');
/** A fragment without the layout, for htmx. */
const SUGGESTIONS_TEMPLATE = 'search/suggestions';
/** Names offered by the tag input's `<datalist>`: bounded so the page stays cheap. */
const TAG_CHOICES = 50;

/**
 * `GET /search` (the form, or results with snippets, filters and paging) and
 * `GET /search/suggestions` (the list under a search box), over the services of
 * `/api/stories/search` and its suggestions (docs/decisions.md, "Search page").
 */
export const searchPageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/search',
    { schema: { querystring: SearchPageQuery }, preValidation: async (request) => dropBlankFields(request.query) },
    async (request, reply) => {
      const query = request.query;
      const results = asksForResults(query) ? searchResultsView(await answerStorySearch(app.searchEngine, toStorySearchQuery(query)), query) : undefined;
      const tagChoices = popularTags(app.db, TAG_CHOICES).map((tag) => tag.name);
      return render(reply, SEARCH_TEMPLATE, searchView(query, tagChoices, results));
    },
  );

  app.get('/search/suggestions', { schema: { querystring: SuggestionPageQuery } }, async (request, reply) => {
    const text = request.query.q.trim();
    const model: SuggestionsView = suggestionsView(text === '' ? [] : await app.searchEngine.suggest(text, SUGGESTION_COUNT));
    const html = await reply.viewAsync(SUGGESTIONS_TEMPLATE, model);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  });
};
