/**
 * The page to return to after logging in, or `/`: only a path on this server, starting with one
 * `/` (not `//host` nor `/\host`, which browsers read as another host), without control
 * characters, at most 2,048 characters.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return '/';
  return next;
}
