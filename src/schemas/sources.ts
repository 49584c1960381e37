/** FanFicFare as an optional engine, as the settings API shows it (docs/api.md, "Configuration, administration, health"). */
import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl, Nullable } from './common.js';

export const FanficfareStatusDto = Type.Object({
  configured: Type.Boolean({ description: 'Whether FANFICFARE_COMMAND is set' }),
  command: Nullable(Type.String({ description: 'The command as configured' })),
  answers: Type.Boolean({ description: 'Whether it answered `--version` (checked at most once a minute)' }),
  version: Nullable(Type.String({ description: 'Its version, e.g. `4.59.9`' })),
  error: Nullable(Type.String({ description: 'Why it does not answer' })),
});
export type FanficfareStatusDto = Static<typeof FanficfareStatusDto>;

export const SourcesConfigDto = Type.Object({ fanficfare: FanficfareStatusDto });

export const UrlEngineQuery = Type.Object({ url: { ...HttpUrl, description: 'An address to import' } }, { additionalProperties: false });
export type UrlEngineQuery = Static<typeof UrlEngineQuery>;

export const UrlEngineDto = Type.Object({
  engine: Type.Union([Type.Literal('fanficfare'), Type.Literal('storyshelf')], {
    description: '`fanficfare` when FanFicFare would download the address (202 with a job), else `storyshelf` (its own import)',
  }),
  fanficfareKnowsSite: Type.Boolean({ description: "Whether the address's site is one FanFicFare supports, whether or not it is set up" }),
  message: Nullable(Type.String({ description: 'Said when FanFicFare supports the site but is not set up' })),
});
