/**
 * One plain e-mail address, `local@domain`, as the recipient of a sent book and the settings
 * name them (docs/decisions.md, "Send to an e-reader"). The rule is the HTML standard's "valid
 * e-mail address" (what `<input type=email>` accepts) with a dot required in the domain, and
 * RFC 5321's lengths (64 for the local part, 254 in all). No display names, comments, quotes,
 * commas, angle brackets, white space or line breaks: a value that passes is one address and
 * cannot add a header or a second recipient.
 */
const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Whether `text` is exactly one plain e-mail address. */
export function isMailAddress(text: string): boolean {
  return text.length <= 254 && ADDRESS.test(text);
}
