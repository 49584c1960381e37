/**
 * The device-token contracts (docs/api.md, "Device tokens"; the rules in docs/decisions.md,
 * "Device tokens"): what creating one takes and answers, and the list without secrets.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from './common.js';

/** What a device token may do; a login session may do all of it. */
export const SCOPES = ['read', 'progress', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

/** A new token's scopes when none are asked for: read the library and sync progress, never edit. */
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'progress'];

/** A name is a label a person recognises in a list ("Kobo", "Phone"), not a document. */
export const TOKEN_NAME_MAX = 100;

const ScopeSchema = Type.Unsafe<Scope>(Type.String({ enum: [...SCOPES], description: 'read: catalog, downloads, covers; progress: reading positions; write: edit and delete' }));
const Scopes = Type.Array(ScopeSchema, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true });

export const CreateTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: TOKEN_NAME_MAX, description: 'A label for the device' }),
  scopes: Type.Optional(Scopes),
});
export type CreateTokenBody = Static<typeof CreateTokenBody>;

export const TokenDto = Type.Object({
  id: Uuid,
  name: Type.String(),
  /** The secret's first characters, so a person can tell tokens apart without the secret. */
  prefix: Type.String(),
  scopes: Scopes,
  createdAt: DateTime,
  lastUsedAt: Nullable(DateTime),
});
export type TokenDto = Static<typeof TokenDto>;

/** The answer to a create: the only time the secret is ever shown. */
export const CreatedTokenDto = Type.Object({
  id: Uuid,
  name: Type.String(),
  token: Type.String({ description: 'The secret: shown this once, only its hash is kept' }),
  prefix: Type.String(),
  scopes: Scopes,
  createdAt: DateTime,
});
export type CreatedTokenDto = Static<typeof CreatedTokenDto>;

export const TokenList = Type.Array(TokenDto, { maxItems: 1000 });
