import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl } from './common.js';

/** `POST /api/import/url` (docs/api.md, "Importing from a URL"). */
export const UrlImportBody = Type.Object(
  { url: { ...HttpUrl, description: 'The page to import: http or https only' } },
  { additionalProperties: false },
);
export type UrlImportBody = Static<typeof UrlImportBody>;

export const UrlImportQuery = Type.Object(
  {
    update: Type.Optional(
      Type.Boolean({ description: 'Re-import into the story already imported from this URL (200) instead of answering 409' }),
    ),
  },
  { additionalProperties: false },
);
export type UrlImportQuery = Static<typeof UrlImportQuery>;
