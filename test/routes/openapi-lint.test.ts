import t from 'tap';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { buildTestApp } from '../helpers/app.js';

/**
 * Warnings of Redocly's recommended rules that the API keeps on purpose (docs/decisions.md,
 * "API documentation"), by rule and location. Any other warning fails the test.
 */
const ACCEPTED_WARNINGS: Readonly<Record<string, string>> = {
  // The API's own paths (docs/decisions.md, "API documentation"): the router tells them apart, a static segment wins over a parameter.
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1cover': '/api/stories/author/{authorId} vs /api/stories/{id}/cover',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1rating': '/api/stories/author/{authorId} vs /api/stories/{id}/rating',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1progress': '/api/stories/author/{authorId} vs /api/stories/{id}/progress',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1reading-status': '/api/stories/author/{authorId} vs /api/stories/{id}/reading-status',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1favourite': '/api/stories/author/{authorId} vs /api/stories/{id}/favourite',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1epub': '/api/stories/author/{authorId} vs /api/stories/{id}/epub',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1send': '/api/stories/author/{authorId} vs /api/stories/{id}/send',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1updates': '/api/stories/author/{authorId} vs /api/stories/{id}/updates',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1refresh': '/api/stories/author/{authorId} vs /api/stories/{id}/refresh',
  'no-ambiguous-paths #/paths/~1api~1stories~1{id}~1chapters': '/api/stories/author/{authorId} vs /api/stories/{id}/chapters',
  // KOReader's registration is refused on purpose (402 is one of the two answers KOReader understands): devices use device tokens.
  'operation-2xx-response #/paths/~1kosync~1users~1create/post/responses': 'POST /kosync/users/create always answers 402',
  // Liveness answers 200 or 503, nothing else.
  'operation-4xx-response #/paths/~1healthz/get/responses': 'GET /healthz has no client error',
  // Logout needs no valid token and always succeeds.
  'operation-4xx-response #/paths/~1api~1auth~1logout/post/responses': 'POST /api/auth/logout has no client error',
};

t.test("the OpenAPI document passes Redocly's recommended rules", async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  t.equal(res.statusCode, 200);

  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: res.body, absoluteRef: 'openapi.json', config });
  const describe = (problem: (typeof problems)[number]) => `${problem.ruleId} ${problem.location[0]?.pointer ?? ''}`;

  const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => `${describe(problem)}: ${problem.message}`);
  t.same(errors, [], 'no errors');
  const newWarnings = problems
    .filter((problem) => problem.severity === 'warn' && ACCEPTED_WARNINGS[describe(problem)] === undefined)
    .map((problem) => `${describe(problem)}: ${problem.message}`);
  t.same(newWarnings, [], 'no warnings beyond the accepted ones');
});
