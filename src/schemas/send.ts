/**
 * Sending a story's EPUB to an e-reader's mail-in address (docs/api.md, "Send to an e-reader";
 * docs/decisions.md, "Send to an e-reader").
 */
import { Type, type Static } from '@sinclair/typebox';

/** RFC 5321: an address is at most 254 characters. */
export const MAIL_ADDRESS_MAX = 254;

export const SendBody = Type.Object({
  to: Type.Optional(
    Type.String({ maxLength: MAIL_ADDRESS_MAX, description: 'One e-mail address (the e-reader\'s mail-in address); SEND_TO when left out' }),
  ),
});
export type SendBody = Static<typeof SendBody>;

export const SendResponse = Type.Object({
  message: Type.String(),
  /** The recipient the mail server accepted. */
  to: Type.String(),
  /** The EPUB attachment's size. */
  bytes: Type.Integer({ minimum: 0 }),
});
export type SendResponse = Static<typeof SendResponse>;
