import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SANITIZATION_DESCRIPTION, SANITIZATION_POLICY } from '../html/policy.js';
import { errorResponses } from '../schemas/common.js';
import { HtmlSanitizationConfig } from '../schemas/config.js';

/** The response never changes while the process runs, so it is built once. */
const HTML_SANITIZATION = {
  allowedTags: [...SANITIZATION_POLICY.allowedTags],
  allowedAttributes: Object.fromEntries(
    Object.entries(SANITIZATION_POLICY.allowedAttributes).map(([tag, names]) => [tag, [...names]]),
  ),
  allowedCssProperties: [...SANITIZATION_POLICY.allowedCssProperties],
  removedAttributes: Object.fromEntries(
    Object.entries(SANITIZATION_POLICY.removedAttributes).map(([tag, names]) => [tag, [...names]]),
  ),
  renamedTags: { ...SANITIZATION_POLICY.renamedTags },
  description: SANITIZATION_DESCRIPTION,
};

/** docs/api.md, "Configuration, administration, health": the sanitizer's settings, from the same definition the sanitizer is built from. */
export const sanitizationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/config/html-sanitization',
    {
      schema: {
        tags: ['config'],
        summary: 'The HTML sanitization settings applied to story bodies',
        response: { 200: HtmlSanitizationConfig, ...errorResponses(401) },
      },
    },
    async () => HTML_SANITIZATION,
  );
};
