/**
 * The KOReader sync contracts (docs/api.md, "KOReader sync"; docs/decisions.md, "KOReader sync"),
 * shaped as KOReader's kosync plugin sends and reads them: snake_case `device_id`, Unix-second
 * timestamps, `percentage` 0 to 1.
 */
import { Type, type Static } from '@sinclair/typebox';

/** KOReader's document id: an MD5 (of the file's samples, or of its name), or another client's id. */
const Document = Type.String({ minLength: 1, maxLength: 128, description: "KOReader's document hash" });
const Progress = Type.String({ maxLength: 1000, description: 'An xpointer such as /body/DocFragment[3]/body/p[7]/text().0, or a page number' });
const Percentage = Type.Number({ minimum: 0, maximum: 1, description: 'How far through the book, 0 to 1' });
const Device = Type.String({ maxLength: 100 });
const Timestamp = Type.Integer({ description: 'When the position was saved, Unix seconds' });

export const KosyncDocumentParams = Type.Object({ document: Document });
export type KosyncDocumentParams = Static<typeof KosyncDocumentParams>;

/** `GET /kosync/syncs/progress/{document}`: newer KOReader versions add `ids`, which is ignored. */
export const KosyncProgressQuery = Type.Object({ ids: Type.Optional(Type.Unknown()) });

/** `PUT /kosync/syncs/progress`: newer KOReader versions add `metadata` and `identifiers`, which are ignored. */
export const KosyncProgressBody = Type.Object({
  document: Document,
  /** A paged document (PDF, comics) sends its page as a JSON number: kept as its text. */
  progress: Type.Union([Progress, Type.Number({ description: 'A page number' })]),
  percentage: Percentage,
  device: Device,
  device_id: Device,
  metadata: Type.Optional(Type.Unknown()),
  identifiers: Type.Optional(Type.Unknown()),
});
export type KosyncProgressBody = Static<typeof KosyncProgressBody>;

export const KosyncSaved = Type.Object({ document: Document, timestamp: Timestamp });
export type KosyncSaved = Static<typeof KosyncSaved>;

/** A saved position, or `{}` when there is none (KOReader then says it found no progress). */
export const KosyncProgressDto = Type.Object({
  document: Type.Optional(Document),
  progress: Type.Optional(Progress),
  percentage: Type.Optional(Percentage),
  device: Type.Optional(Device),
  device_id: Type.Optional(Device),
  timestamp: Type.Optional(Timestamp),
});
export type KosyncProgressDto = Static<typeof KosyncProgressDto>;

/** `POST /kosync/users/create`: KOReader's registration form, never acted on. */
export const KosyncRegisterBody = Type.Object({
  username: Type.Optional(Type.String({ maxLength: 1000 })),
  password: Type.Optional(Type.String({ maxLength: 1000 })),
});

export const KosyncAuthorized = Type.Object({ authorized: Type.Literal('OK') });

/** Errors carry `message` too: KOReader shows that field. */
export const KosyncError = Type.Object({
  error: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Record(Type.String(), Type.String())),
  requestId: Type.Optional(Type.String()),
});

export const KosyncMessage = Type.Object({ message: Type.String() });
